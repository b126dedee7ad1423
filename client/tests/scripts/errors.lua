-- a runtime error in each callback; wrk.path picks the one that fails
local mode = wrk.path
local calls = 0

local function fail(where)
  error("boom in " .. where) -- line 6
end

function setup(thread)
  if mode == "/setup" then fail("setup") end
  if mode == "/transfer" then thread:set("f", print) end
  if mode == "/cycle" then
    local t = {}
    t.self = t
    thread:set("t", t)
  end
end

function init(args)
  if mode == "/init" then fail("init") end
end

function request()
  calls = calls + 1
  if mode == "/request-first" then fail("request") end
  if calls == 2 then
    if mode == "/request" then fail("request") end
    if mode == "/nil" then return nil end
    if mode == "/empty" then return "" end
    if mode == "/kind" then return "GET / HTTP/1.1\r\n\r\n", 42 end
    if mode == "/table" then error({}) end
  end
  return "GET / HTTP/1.1\r\n\r\n"
end

function response(status, headers, body)
  if mode == "/response" then fail("response") end
end

function delay()
  if mode == "/delay" then fail("delay") end
  return 0
end

function done(summary, latency, requests)
  if mode == "/done" then fail("done") end
end
