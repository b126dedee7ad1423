-- request() returns a string built once in init(): the cost of a script per request.
local req

function init(args)
  req = wrk.format(nil, "/")
end

function request()
  return req
end
