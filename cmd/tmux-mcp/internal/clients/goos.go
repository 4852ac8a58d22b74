package clients

import "runtime"

// goos is the system the paths are for; the tests set Env.OS themselves.
var goos = runtime.GOOS
