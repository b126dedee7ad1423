-- mixed: each wrk thread rotates GET /, GET /no-read, GET /hello, GET /file?size=1024 and POST /load.
local body = '{"id":42,"name":"barrage","tags":["load","test"],"value":3.14159}\n'
local requests = {}

-- Built in init(): wrk sets the Host header (which wrk.format adds) just before calling it.
function init(args)
  requests = {
    wrk.format("GET", "/"),
    wrk.format("GET", "/no-read"),
    wrk.format("GET", "/hello"),
    wrk.format("GET", "/file?size=1024"),
    wrk.format("POST", "/load", {["Content-Type"] = "application/json"}, body),
  }
end

local next_index = 0

function request()
  next_index = next_index % #requests + 1
  return requests[next_index]
end

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
