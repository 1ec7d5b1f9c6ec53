// Command render-manifests writes the plain Kubernetes manifests under manifests/ from the
// Helm chart, one file per values file there: manifests/NAME.values.yaml gives
// manifests/NAME.yaml. Run it from the deploy directory (make manifests does).
package main

import (
	"fmt"
	"os"

	"rmqconsole/deploy"
)

func main() {
	written, err := deploy.WriteManifests(".")
	for _, f := range written {
		fmt.Println("wrote", f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "render-manifests:", err)
		os.Exit(1)
	}
}
