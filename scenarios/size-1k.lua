-- size-1k: GET /file?size=1024, one point of the response-size sweep (scenario group size-sweep).
wrk.method = "GET"
wrk.path = "/file?size=1024"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
