// Command rmqconsole is a web console for Apache RocketMQ.
package main

import (
	"os"

	"rmqconsole/server"
)

func main() {
	os.Exit(server.Main(os.Args[1:]))
}
