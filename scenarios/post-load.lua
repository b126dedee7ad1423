-- post-load: POST /load with a small JSON body (the same bytes as scenarios/load-body.json).
wrk.method = "POST"
wrk.path = "/load"
wrk.body = '{"id":42,"name":"barrage","tags":["load","test"],"value":3.14159}\n'
wrk.headers["Content-Type"] = "application/json"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
