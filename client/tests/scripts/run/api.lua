-- api.lua: the scripting API end to end over HTTP/1.1, h2c and TLS (tests/h2/run.py), against an
-- nginx whose /echo/ answers "METHOD URI X-Test Content-Length Host" with X-Path and X-Port headers.
-- args[1] tags the requests; the second thread connects to $BARRAGE_SECOND_PORT.
local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
  thread:set("id", #threads)
  if #threads == 2 then
    thread.addr = wrk.lookup("127.0.0.1", os.getenv("BARRAGE_SECOND_PORT"))[1]
  end
end

local texts

function init(args)
  local tag = {["X-Test"] = args[1]}
  texts = {
    {wrk.format("GET", "/echo/a", tag), "get"},
    {wrk.format("POST", "/echo/b", tag, "payload") .. wrk.format("GET", "/echo/c", tag), "pair"},
    {wrk.format("HEAD", "/echo/d", tag), "head"},
  }
end

local i, calls = 0, 0
bad_conn = 0

function request(conn)
  -- delay(conn) was asked before this text, with the same table (but before wrk's extra call,
  -- the first of the first thread)
  calls = calls + 1
  if conn.delays == nil and calls > 1 then bad_conn = bad_conn + 1 end
  conn.texts = (conn.texts or 0) + 1
  i = i % #texts + 1
  return texts[i][1], texts[i][2]
end

function delay(conn)
  conn.delays = (conn.delays or 0) + 1
  return 1
end

answers = {}

function response(status, headers, body, conn)
  if conn.texts == nil then bad_conn = bad_conn + 1 end
  local key = string.format("%d %s|%s|%s", status, tostring(headers["X-Path"]), body:gsub("\n", ""),
    tostring(headers["x-port"]))
  answers[key] = (answers[key] or 0) + 1
end

function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    for key, n in pairs(thread:get("answers")) do
      io.write("answer ", thread:get("id"), " ", key, " ", n, "\n")
    end
    io.write("bad_conn ", thread:get("bad_conn"), "\n")
  end
  io.write(string.format("summary %d %d %s %d\n", summary.requests, summary.errors.status,
    tostring(latency.max > 0), #requests))
end
