-- churn-1-resume: GET /hello; as churn-1, over TLS with session resumption (resumed handshakes) (the connection column of scenarios.tsv).
wrk.method = "GET"
wrk.path = "/hello"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
