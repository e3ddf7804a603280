// Command etcd is etcd's own server main (flags, embed server, signal
// handling), built from go.etcd.io/etcd/server/v3 at the version go.mod pins.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
