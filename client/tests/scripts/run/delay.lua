-- delay(): args[1] milliseconds before every request of a connection
local ms

function init(args)
  ms = tonumber(args[1])
end

function delay()
  return ms
end
