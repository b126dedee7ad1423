-- thread:stop() in the 6th request() call (the first is wrk's extra call): 4 requests go out
local calls = 0

function request()
  calls = calls + 1
  if calls == 6 then
    wrk.thread:stop()
  end
  return wrk.format()
end
