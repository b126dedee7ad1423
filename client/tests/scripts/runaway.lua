-- A runaway script for the watchdog's tests: the path picks the callback that
-- never returns (an endless loop, or a blocking call in C). -d, --timeout and
-- Ctrl-C must end the run whatever it does.
local where = wrk.path:match("^/([%w-]+)") or ""

local function forever()
   local x = 0
   while true do x = x + 1 end
end

local fifo
local function block()
   -- a call blocked in C: opening a FIFO nobody writes to (its path is the script's argument)
   local f = io.open(fifo, "r")
   if f then f:read("*a") end
end

if where == "toplevel" then forever() end

function setup(thread)
   if where == "setup" then forever() end
end

function init(args)
   fifo = args[1]
   if where == "init" then forever() end
end

local n = 0
function request()
   n = n + 1
   -- the first call is wrk's extra one before the run: loop in the run only
   if where == "request" and n > 3 then forever() end
   if where == "exit" and n > 3 then os.exit(0) end
   return wrk.format()
end

function response(status, headers, body)
   if where == "response" then forever() end
   if where == "response-sleep" then os.execute("sleep 60") end
   if where == "response-read" then block() end
end

function done(summary, latency, requests)
   if where == "done" then forever() end
end
