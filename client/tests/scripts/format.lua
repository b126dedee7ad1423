-- wrk.format with and without body and headers, before and after init()
early = wrk.format() -- at load time: wrk.init has not set the Host header yet

function init(args)
  plain = wrk.format()
  post = wrk.format("POST", "/p", {["X-A"] = "1"}, "hello")
  put = wrk.format("PUT", nil, {["X-B"] = "2", ["Content-Length"] = "99"})
end
