-- large-file: GET /file?size=1048576, a 1 MiB body per request.
wrk.method = "GET"
wrk.path = "/file?size=1048576"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
