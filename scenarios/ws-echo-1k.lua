-- ws-echo-1k: WebSocket messages of 1024 bytes to GET /ws's echo (scenarios.tsv's connection column ws:1024).
-- Only a tool with the websocket capability runs it (barrage, over ws:// itself, without this
-- script); the script exists for the table's one-to-one rule and, run by wrk, sends GET /hello.
wrk.method = "GET"
wrk.path = "/hello"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
