-- setup(thread): the second thread connects to the port in $BARRAGE_SECOND_PORT (wrk.lookup),
-- and done() says whether wrk.connect reaches it
local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
  if #threads == 2 then
    thread.addr = wrk.lookup("127.0.0.1", os.getenv("BARRAGE_SECOND_PORT"))[1]
  end
  thread:set("id", #threads)
end

function init(args)
  path = "/t" .. id
end

function request()
  return wrk.format(nil, path)
end

function done(summary, latency, requests)
  io.write("second ", tostring(threads[2].addr), " connect ", tostring(wrk.connect(threads[2].addr)), "\n")
end
