-- baseline: GET / on every connection, the cheapest request a server can answer.
wrk.method = "GET"
wrk.path = "/"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
