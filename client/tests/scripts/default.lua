-- no request(): the default request, formatted by wrk.init after init()
wrk.headers["X-Top"] = "top"

function init(args)
  wrk.method = "POST"
end
