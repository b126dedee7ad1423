-- churn-10-resume: GET /hello; as churn-10, over TLS with session resumption (the connection column of scenarios.tsv).
wrk.method = "GET"
wrk.path = "/hello"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
