package views

import "github.com/a-h/templ"

// ClusterChrome is what the header shows of the cluster a page is about, and the switch
// to the others. Nil when the console manages one cluster: its pages look as before.
type ClusterChrome struct {
	Name, Label, Color string
	// All is every configured cluster, in the configuration's order.
	All []ClusterLink
}

// ClusterLink is one cluster in the switch or on the overview.
type ClusterLink struct {
	Name, Label, Color string
	// URL is the cluster's overview, /c/{name}/.
	URL     string
	Current bool
}

// ClusterHealthRow is one configured cluster on the overview: whether a NameServer
// answered, how many brokers are up, and their versions.
type ClusterHealthRow struct {
	ClusterLink
	NameServerOK bool
	// Error says why no NameServer or broker could be read ("" when they were).
	Error            string
	BrokersUp        int
	Brokers          int
	Versions         string
	NameServerDetail string
}

// clusterStyle tints a cluster's tag with its configured colour (validated at start-up:
// #rgb, #rrggbb or a colour name).
func clusterStyle(color string) templ.SafeCSS {
	if color == "" {
		return ""
	}
	return templ.SafeCSS("--rmqc-cluster:" + color + ";")
}

func ariaCurrent(on bool) string {
	if on {
		return "page"
	}
	return "false"
}
