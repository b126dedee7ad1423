-- idle-10k: GET /hello; GET /hello on the busy connections beside 10,000 idle ones (scenarios.tsv) (the connection column of scenarios.tsv).
wrk.method = "GET"
wrk.path = "/hello"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
