-- setup(thread) in the main state; thread:get/set/stop across states; done() reads the threads
local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
  thread:set("id", #threads)
  thread:set("config", {name = "t" .. #threads, list = {10, 20, 30}, on = true})
  addr_before = tostring(thread.addr)
  if #threads == 2 then
    thread.addr = wrk.lookup("127.0.0.1", "9")[1]
  end
  setup_saw = thread:get("id")
end

function init(args)
  init_saw = id .. ":" .. config.name .. ":" .. config.list[3] .. ":" .. tostring(config.on)
  own_id = wrk.thread:get("id")
end

function request()
  hits = (hits or 0) + 1
  if id == 1 and hits == 3 then
    wrk.thread:stop()
  end
  return wrk.format(nil, "/t" .. id)
end

function done(summary, latency, requests)
  local parts = {}
  for _, thread in ipairs(threads) do
    parts[#parts + 1] = thread:get("id") .. "=" .. thread:get("hits") .. "/" .. thread:get("config").list[2]
  end
  seen_in_done = table.concat(parts, " ")
end
