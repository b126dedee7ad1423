-- init(args): the default request's path made of the arguments after the URL (args[0] is the URL)
function init(args)
  wrk.path = "/" .. table.concat(args, "/", 1) .. "/" .. #args .. (args[0]:match("^http://") and "/url" or "/nourl")
end
