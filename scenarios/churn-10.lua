-- churn-10: GET /hello; each connection carries 10 requests and the client closes it (the connection column of scenarios.tsv).
wrk.method = "GET"
wrk.path = "/hello"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
