-- the hot path: prebuilt requests and a response() that keeps nothing
local requests = {}

function init(args)
  requests = {wrk.format(nil, "/x"), wrk.format(nil, "/y")}
end

local i = 0

function request()
  i = i % #requests + 1
  return requests[i], "hot"
end

function response(status, headers, body)
end
