package server

import (
	"net/http"

	"rmqconsole/handlers"
	"rmqconsole/rights"
)

// manageRoutes are the pages and API that change what the cluster is made of: consumer
// groups' subscription settings, ACL 2.0 users and policies, and brokers' configuration.
// Each change is previewed, applied with its audit entry written first, and read back.
func (a *clusterApp) manageRoutes(env *handlers.Env) []route {
	s := a.svc
	gs := &handlers.GroupSettings{Env: env}
	ah := &handlers.ACL{Env: env}
	bc := &handlers.BrokerConfig{Env: env}
	if s.brokers != nil {
		gs.Settings, ah.ACL, bc.Brokers = s.groupSettings, s.acl, s.brokers
	}
	return []route{
		{http.MethodGet, "/group-settings", gs.Create, read},
		{http.MethodGet, "/groups/:group/settings", gs.Show, read},
		{http.MethodPost, "/groups/:group/settings/preview", gs.Preview, change.on(rights.ManageGroups)},
		{http.MethodPost, "/groups/:group/settings/apply", gs.Apply, groupSettings},
		{http.MethodPost, "/groups/:group/delete", gs.Delete, groupDelete},
		{http.MethodGet, "/api/v1/groups/:group/config", gs.ConfigAPI, read},
		{http.MethodPost, "/api/v1/groups/:group/config-preview", gs.PreviewAPI, change.on(rights.ManageGroups)},
		{http.MethodPut, "/api/v1/groups/:group/config", gs.ApplyAPI, groupSettings},
		{http.MethodDelete, "/api/v1/groups/:group", gs.DeleteAPI, groupDelete},

		{http.MethodGet, "/acl", ah.Show, aclRead},
		{http.MethodPost, "/acl/users/preview", ah.PreviewUser, aclRead},
		{http.MethodPost, "/acl/policies/preview", ah.PreviewPolicy, aclRead},
		{http.MethodPost, "/acl/apply", ah.Apply, aclChange},
		{http.MethodPost, "/acl/delete", ah.Delete, aclChange},
		{http.MethodGet, "/api/v1/acl/users", ah.UsersAPI, aclRead},
		{http.MethodPost, "/api/v1/acl/users", ah.CreateUserAPI, aclChange},
		{http.MethodGet, "/api/v1/acl/users/:name", ah.UserAPI, aclRead},
		{http.MethodPut, "/api/v1/acl/users/:name", ah.UpdateUserAPI, aclChange},
		{http.MethodDelete, "/api/v1/acl/users/:name", ah.DeleteUserAPI, aclChange},
		{http.MethodGet, "/api/v1/acl/policies", ah.PoliciesAPI, aclRead},
		{http.MethodPost, "/api/v1/acl/policies", ah.CreatePolicyAPI, aclChange},
		{http.MethodGet, "/api/v1/acl/policies/:subject", ah.PolicyAPI, aclRead},
		{http.MethodPut, "/api/v1/acl/policies/:subject", ah.UpdatePolicyAPI, aclChange},
		{http.MethodDelete, "/api/v1/acl/policies/:subject", ah.DeletePolicyAPI, aclChange},

		{http.MethodGet, "/brokers/config-drift", bc.Drift, read},
		{http.MethodGet, "/brokers/:name/config", bc.Edit, read},
		{http.MethodPost, "/brokers/:name/config/preview", bc.Preview, brokerConfigPreview},
		{http.MethodPost, "/brokers/:name/config/apply", bc.Apply, brokerConfigApply},
		{http.MethodGet, "/api/v1/brokers/config-drift", bc.DriftAPI, read},
		{http.MethodGet, "/api/v1/brokers/:name/config", bc.ConfigAPI, read},
		{http.MethodPost, "/api/v1/brokers/:name/config-preview", bc.PreviewAPI, brokerConfigPreview},
		{http.MethodPut, "/api/v1/brokers/:name/config", bc.ApplyAPI, brokerConfigApply},
	}
}
