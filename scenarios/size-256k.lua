-- size-256k: GET /file?size=262144, one point of the response-size sweep (scenario group size-sweep).
wrk.method = "GET"
wrk.path = "/file?size=262144"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
