// Command kube-apiserver is upstream's kube-apiserver main, built from the
// k8s.io/kubernetes module at the version go.mod pins.
package main

import (
	"os"
	_ "time/tzdata" // CronJob time zones, as upstream's main

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
