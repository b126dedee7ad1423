-- a header value with a bare LF (the request parser takes LF as a line end): refused when
-- wrk.init formats the default request
wrk.headers["X-A"] = "1\nX-Smuggled: 1"
