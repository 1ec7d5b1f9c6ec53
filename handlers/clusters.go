package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"rmqconsole/brokers"
	"rmqconsole/i18n"
	"rmqconsole/views"
)

// ClusterHealth is one configured cluster at a glance: GET /api/v1/clusters and the
// overview's cluster table.
type ClusterHealth struct {
	Name    string `json:"name"`
	Label   string `json:"label"`
	Color   string `json:"color,omitempty"`
	Default bool   `json:"default"`
	// URL is the cluster's overview page, /c/{name}/.
	URL string `json:"url"`
	brokers.Health
}

// ClusterList reads every configured cluster's health, at once and within the caller's
// deadline.
type ClusterList func(ctx context.Context) []ClusterHealth

// ClustersAPI answers GET /api/v1/clusters.
func (h *Home) ClustersAPI(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"clusters": h.Clusters(c.Request.Context())})
}

// clusterRows turns the clusters' health into the overview's table rows.
func (h *Home) clusterRows(l *i18n.Localizer, hs []ClusterHealth) []views.ClusterHealthRow {
	rows := make([]views.ClusterHealthRow, len(hs))
	for i, c := range hs {
		errs := c.Errors
		if len(c.Problems) == len(c.Errors) {
			errs = make([]string, len(c.Problems))
			for j, m := range c.Problems {
				errs[j] = l.Say(m)
			}
		}
		rows[i] = views.ClusterHealthRow{
			ClusterLink:  views.ClusterLink{Name: c.Name, Label: c.Label, Color: c.Color, URL: c.URL, Current: c.Name == h.clusterName()},
			NameServerOK: c.NameServerOK, NameServerDetail: c.NameServer, Error: saySentences(l, errs),
			BrokersUp: c.BrokersUp, Brokers: c.Brokers, Versions: strings.Join(c.Versions, ", "),
		}
	}
	return rows
}

// saySentences writes sentences one after the other, as l's language does: a space
// between English sentences, none between Chinese ones.
func saySentences(l *i18n.Localizer, ss []string) string {
	if l.IsChinese() {
		return strings.Join(ss, "")
	}
	return strings.Join(ss, " ")
}

// clusterName is the name of the cluster these handlers serve ("" with one cluster).
func (e *Env) clusterName() string {
	if e.Cluster == nil {
		return ""
	}
	return e.Cluster.Name
}
