package server

import (
	"github.com/gin-gonic/gin"

	"rmqconsole/acl"
	"rmqconsole/brokers"
	"rmqconsole/handlers"
	"rmqconsole/previews"
	"rmqconsole/subgroups"
)

// manageRoutes registers the pages and API that change what the cluster is made of:
// consumer groups' subscription settings, ACL 2.0 users and policies, and brokers'
// configuration. Each change is previewed, applied with its audit entry written first,
// and read back; who may do which is in access_rules.go.
func (a *clusterApp) manageRoutes(r *gin.Engine, env *handlers.Env) {
	gs := &handlers.GroupSettings{Env: env}
	ah := &handlers.ACL{Env: env}
	bc := &handlers.BrokerConfig{Env: env}
	if a.rmq != nil {
		var shared previews.Store
		if a.replica.shared {
			// A browser may preview on one console and apply on another.
			shared = a.store
		}
		kept := previews.New(shared, 0, nil)
		audit := a.store.Audit()
		gs.Settings = subgroups.New(a.rmq, subgroups.Options{Cluster: a.cluster, Audit: audit, Previews: kept, NameServers: a.nameServers()})
		ah.ACL = acl.New(a.rmq, acl.Options{Cluster: a.cluster, Audit: audit, Previews: kept, NameServers: a.nameServers(),
			Self: a.cc.Credentials.AccessKey})
		svc := brokers.New(a.rmq, a.cluster)
		svc.EnableChanges(brokers.ChangeOptions{Changer: a.rmq, Audit: audit, Previews: kept, NameServers: a.nameServers()})
		bc.Brokers = svc
	}

	r.GET("/group-settings", gs.Create)
	r.GET("/groups/:group/settings", gs.Show)
	r.POST("/groups/:group/settings/preview", gs.Preview)
	r.POST("/groups/:group/settings/apply", gs.Apply)
	r.POST("/groups/:group/delete", gs.Delete)
	r.GET("/api/v1/groups/:group/config", gs.ConfigAPI)
	r.POST("/api/v1/groups/:group/config-preview", gs.PreviewAPI)
	r.PUT("/api/v1/groups/:group/config", gs.ApplyAPI)
	r.DELETE("/api/v1/groups/:group", gs.DeleteAPI)

	r.GET("/acl", ah.Show)
	r.POST("/acl/users/preview", ah.PreviewUser)
	r.POST("/acl/policies/preview", ah.PreviewPolicy)
	r.POST("/acl/apply", ah.Apply)
	r.POST("/acl/delete", ah.Delete)
	r.GET("/api/v1/acl/users", ah.UsersAPI)
	r.POST("/api/v1/acl/users", ah.CreateUserAPI)
	r.GET("/api/v1/acl/users/:name", ah.UserAPI)
	r.PUT("/api/v1/acl/users/:name", ah.UpdateUserAPI)
	r.DELETE("/api/v1/acl/users/:name", ah.DeleteUserAPI)
	r.GET("/api/v1/acl/policies", ah.PoliciesAPI)
	r.POST("/api/v1/acl/policies", ah.CreatePolicyAPI)
	r.GET("/api/v1/acl/policies/:subject", ah.PolicyAPI)
	r.PUT("/api/v1/acl/policies/:subject", ah.UpdatePolicyAPI)
	r.DELETE("/api/v1/acl/policies/:subject", ah.DeletePolicyAPI)

	r.GET("/brokers/config-drift", bc.Drift)
	r.GET("/brokers/:name/config", bc.Edit)
	r.POST("/brokers/:name/config/preview", bc.Preview)
	r.POST("/brokers/:name/config/apply", bc.Apply)
	r.GET("/api/v1/brokers/config-drift", bc.DriftAPI)
	r.GET("/api/v1/brokers/:name/config", bc.ConfigAPI)
	r.POST("/api/v1/brokers/:name/config-preview", bc.PreviewAPI)
	r.PUT("/api/v1/brokers/:name/config", bc.ApplyAPI)
}
