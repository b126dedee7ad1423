-- a runtime error at load time, line 2
error("top-level boom")
