package deploy

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// objects is one render of the chart, every object decoded into its API type.
type objects struct {
	deployment      *appsv1.Deployment
	service         *corev1.Service
	pvcs            []*corev1.PersistentVolumeClaim
	secrets         []*corev1.Secret
	ingress         *networkingv1.Ingress
	pdb             *policyv1.PodDisruptionBudget
	serviceMonitor  *monitoringv1.ServiceMonitor
	serviceAccounts []*corev1.ServiceAccount
	notes           string
}

// decodeStrict decodes one rendered object into the API type of its apiVersion and kind.
// A field the type does not have (misspelt, misplaced, or from another API version)
// fails, as does a kind the chart is not expected to make.
func decodeStrict(doc []byte, into *objects) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "apps/v1 Deployment":
		if into.deployment != nil {
			return fmt.Errorf("a second Deployment")
		}
		into.deployment = &appsv1.Deployment{}
		obj = into.deployment
	case "v1 Service":
		if into.service != nil {
			return fmt.Errorf("a second Service")
		}
		into.service = &corev1.Service{}
		obj = into.service
	case "v1 PersistentVolumeClaim":
		pvc := &corev1.PersistentVolumeClaim{}
		into.pvcs, obj = append(into.pvcs, pvc), pvc
	case "v1 Secret":
		s := &corev1.Secret{}
		into.secrets, obj = append(into.secrets, s), s
	case "v1 ServiceAccount":
		sa := &corev1.ServiceAccount{}
		into.serviceAccounts, obj = append(into.serviceAccounts, sa), sa
	case "networking.k8s.io/v1 Ingress":
		into.ingress = &networkingv1.Ingress{}
		obj = into.ingress
	case "policy/v1 PodDisruptionBudget":
		into.pdb = &policyv1.PodDisruptionBudget{}
		obj = into.pdb
	case "monitoring.coreos.com/v1 ServiceMonitor":
		into.serviceMonitor = &monitoringv1.ServiceMonitor{}
		obj = into.serviceMonitor
	default:
		return fmt.Errorf("unexpected object %s %s", tm.APIVersion, tm.Kind)
	}
	return unmarshalStrict(doc, obj)
}

// unmarshalStrict decodes YAML as the API server does: field names match case and all,
// and an unknown or repeated field fails.
func unmarshalStrict(doc []byte, obj any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(j, obj)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// render renders the chart with a values file of ci/ and decodes every object strictly.
func render(t *testing.T, valuesFile string) *objects {
	t.Helper()
	vals, err := ReadValuesFile(filepath.Join(ChartDir, "ci", valuesFile))
	if err != nil {
		t.Fatal(err)
	}
	return renderValues(t, vals)
}

func renderValues(t *testing.T, vals map[string]any) *objects {
	t.Helper()
	ch, err := LoadChart(ChartDir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Render(ch, vals, Release{Name: "rmq", Namespace: "rocketmq"})
	if err != nil {
		t.Fatal(err)
	}
	out := &objects{notes: r.Notes}
	for _, m := range r.Manifests {
		if err := decodeStrict([]byte(m.Content), out); err != nil {
			t.Fatalf("%s: %v\n%s", m.Name, err, m.Content)
		}
	}
	if out.deployment == nil || out.service == nil {
		t.Fatalf("no Deployment or no Service among %d objects", len(r.Manifests))
	}
	checkCommon(t, out)
	return out
}

// consoleSettings is every RMQC_ variable the console reads, from its configuration code.
func consoleSettings(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("../server/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("the console's configuration code: %v", err)
	}
	known := map[string]bool{}
	re := regexp.MustCompile(`"(RMQC_[A-Z0-9_]+)"`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			known[string(m[1])] = true
		}
	}
	if !known["RMQC_NAMESRV"] || !known["RMQC_DB"] {
		t.Fatalf("the console's settings were not found in ../server (%d found)", len(known))
	}
	return known
}

// checkCommon checks what every render must hold: names Kubernetes accepts, selectors
// that select the console's pods, every mount backed by a volume and every file the
// console is told to read inside one, known settings, probes, and the security context.
func checkCommon(t *testing.T, o *objects) {
	t.Helper()
	metas := []*metav1.ObjectMeta{&o.deployment.ObjectMeta, &o.service.ObjectMeta}
	for _, p := range o.pvcs {
		metas = append(metas, &p.ObjectMeta)
	}
	for _, s := range o.secrets {
		metas = append(metas, &s.ObjectMeta)
	}
	for _, s := range o.serviceAccounts {
		metas = append(metas, &s.ObjectMeta)
	}
	if o.ingress != nil {
		metas = append(metas, &o.ingress.ObjectMeta)
	}
	if o.pdb != nil {
		metas = append(metas, &o.pdb.ObjectMeta)
	}
	if o.serviceMonitor != nil {
		metas = append(metas, &o.serviceMonitor.ObjectMeta)
	}
	for _, m := range metas {
		for _, e := range validation.IsDNS1123Subdomain(m.Name) {
			t.Errorf("name %q: %s", m.Name, e)
		}
		checkLabels(t, m.Name, m.Labels)
	}

	d := o.deployment
	pod := d.Spec.Template
	checkLabels(t, "pod template", pod.Labels)
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Matches(labels.Set(pod.Labels)) {
		t.Errorf("the Deployment's selector %s does not select its pods %v", sel, pod.Labels)
	}
	if !labels.SelectorFromSet(o.service.Spec.Selector).Matches(labels.Set(pod.Labels)) {
		t.Errorf("the Service's selector %v does not select the console's pods %v", o.service.Spec.Selector, pod.Labels)
	}
	if o.pdb != nil {
		s, err := metav1.LabelSelectorAsSelector(o.pdb.Spec.Selector)
		if err != nil || !s.Matches(labels.Set(pod.Labels)) {
			t.Errorf("the PodDisruptionBudget's selector %v does not select the console's pods (%v)", o.pdb.Spec.Selector, err)
		}
	}
	if len(o.serviceAccounts) == 1 && o.serviceAccounts[0].Name != pod.Spec.ServiceAccountName {
		t.Errorf("pods run as %q, the chart makes %q", pod.Spec.ServiceAccountName, o.serviceAccounts[0].Name)
	}

	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want the console alone", len(pod.Spec.Containers))
	}
	console := pod.Spec.Containers[0]
	if len(console.Ports) != 1 || console.Ports[0].Name != "http" {
		t.Fatalf("the console's ports: %+v, want one named http", console.Ports)
	}
	port := console.Ports[0]
	if sp := o.service.Spec.Ports; len(sp) != 1 || sp[0].TargetPort.String() != "http" {
		t.Errorf("the Service's ports %+v do not lead to the console's port http", sp)
	}
	env := envOf(console)
	if listen := env["RMQC_LISTEN"].Value; listen != fmt.Sprintf(":%d", port.ContainerPort) {
		t.Errorf("RMQC_LISTEN = %q, the container port is %d", listen, port.ContainerPort)
	}

	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		if _, dup := volumes[v.Name]; dup {
			t.Errorf("volume %s declared twice", v.Name)
		}
		volumes[v.Name] = v
	}
	used := map[string]bool{}
	known := consoleSettings(t)
	all := append(slices.Clone(pod.Spec.InitContainers), console)
	for _, c := range all {
		seen := map[string]bool{}
		for _, e := range c.Env {
			if seen[e.Name] {
				t.Errorf("%s: %s set twice", c.Name, e.Name)
			}
			seen[e.Name] = true
			if strings.HasPrefix(e.Name, "RMQC_") && e.Name != "RMQC_ADMIN_USER" && !known[e.Name] {
				t.Errorf("%s: %s is no setting of the console", c.Name, e.Name)
			}
		}
		for _, m := range c.VolumeMounts {
			if _, ok := volumes[m.Name]; !ok {
				t.Errorf("%s mounts %s, which no volume declares", c.Name, m.Name)
			}
			used[m.Name] = true
		}
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("%s: security context %+v, want a read-only root, no privilege escalation, every capability dropped", c.Name, sc)
		}
		for _, dir := range []string{"/data", "/tmp"} {
			if m, ok := mountAt(c, dir); !ok || m.ReadOnly {
				t.Errorf("%s: %s is not a writable volume (the root filesystem is read-only)", c.Name, dir)
			}
		}
		// Every file the console is told to read is in a volume that holds it.
		for _, name := range []string{"RMQC_CONFIG", "RMQC_SECRET_KEY_FILE", "RMQC_TLS_CERT", "RMQC_TLS_KEY"} {
			if e, ok := envOf(c)[name]; ok {
				checkFileMounted(t, c, volumes, name, e.Value)
			}
		}
	}
	for name := range volumes {
		if !used[name] {
			t.Errorf("volume %s is mounted nowhere", name)
		}
	}
	psc := pod.Spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 || psc.FSGroup == nil {
		t.Errorf("pod security context %+v, want a non-root user and an fsGroup for the volumes", psc)
	}

	// Probes: /healthz says the process lives, /readyz whether it can serve.
	scheme := corev1.URISchemeHTTP
	if _, ok := env["RMQC_TLS_CERT"]; ok {
		scheme = corev1.URISchemeHTTPS
	}
	for what, p := range map[string]*corev1.Probe{"startup": console.StartupProbe, "liveness": console.LivenessProbe, "readiness": console.ReadinessProbe} {
		want := "/healthz"
		if what == "readiness" {
			want = "/readyz"
		}
		if p == nil || p.HTTPGet == nil {
			t.Errorf("no %s probe", what)
			continue
		}
		if g := p.HTTPGet; g.Path != want || g.Port.String() != "http" || g.Scheme != scheme {
			t.Errorf("%s probe: %s %s on %s, want %s %s on http", what, g.Scheme, g.Path, g.Port.String(), scheme, want)
		}
	}
	if console.Resources.Requests.Memory().IsZero() || console.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want a memory request and limit", console.Resources)
	}

	// The data volume: the chart's claim when it is one.
	if claim := volumes["data"].PersistentVolumeClaim; claim != nil {
		if !slices.ContainsFunc(o.pvcs, func(p *corev1.PersistentVolumeClaim) bool { return p.Name == claim.ClaimName }) {
			t.Errorf("the data volume claims %s, which the chart does not make", claim.ClaimName)
		}
	}

	if ing := o.ingress; ing != nil {
		for _, r := range ing.Spec.Rules {
			for _, p := range r.HTTP.Paths {
				if b := p.Backend.Service; b == nil || b.Name != o.service.Name || b.Port.Name != o.service.Spec.Ports[0].Name {
					t.Errorf("ingress path %s%s leads to %+v, not the console's Service %s", r.Host, p.Path, b, o.service.Name)
				}
			}
		}
	}
	if sm := o.serviceMonitor; sm != nil {
		s, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
		if err != nil || !s.Matches(labels.Set(o.service.Labels)) {
			t.Errorf("the ServiceMonitor's selector %v does not select the console's Service %v (%v)", sm.Spec.Selector, o.service.Labels, err)
		}
		for _, ep := range sm.Spec.Endpoints {
			if ep.Port != o.service.Spec.Ports[0].Name || ep.Path != "/metrics" || !strings.EqualFold(ep.Scheme.String(), string(scheme)) {
				t.Errorf("ServiceMonitor endpoint %s %s on %s, want %s /metrics on %s", ep.Scheme.String(), ep.Path, ep.Port, scheme, o.service.Spec.Ports[0].Name)
			}
		}
	}
}

func checkLabels(t *testing.T, what string, l map[string]string) {
	t.Helper()
	for k, v := range l {
		for _, e := range validation.IsQualifiedName(k) {
			t.Errorf("%s: label key %q: %s", what, k, e)
		}
		for _, e := range validation.IsValidLabelValue(v) {
			t.Errorf("%s: label %s=%q: %s", what, k, v, e)
		}
	}
}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	m := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		m[e.Name] = e
	}
	return m
}

func mountAt(c corev1.Container, dir string) (corev1.VolumeMount, bool) {
	for _, m := range c.VolumeMounts {
		if m.MountPath == dir {
			return m, true
		}
	}
	return corev1.VolumeMount{}, false
}

// checkFileMounted checks that file lies in one of c's mounts of a Secret volume that
// holds it: under the mount, as an item the volume projects (or any key, without items).
func checkFileMounted(t *testing.T, c corev1.Container, volumes map[string]corev1.Volume, setting, file string) {
	t.Helper()
	for _, m := range c.VolumeMounts {
		rel, ok := strings.CutPrefix(file, m.MountPath+"/")
		if !ok {
			continue
		}
		s := volumes[m.Name].Secret
		if s == nil {
			t.Errorf("%s: %s=%s is in volume %s, which is no Secret", c.Name, setting, file, m.Name)
			return
		}
		if len(s.Items) == 0 || slices.ContainsFunc(s.Items, func(k corev1.KeyToPath) bool { return k.Path == rel }) {
			return
		}
		t.Errorf("%s: %s=%s: Secret %s's volume projects %+v, not %s", c.Name, setting, file, s.SecretName, s.Items, rel)
		return
	}
	t.Errorf("%s: %s=%s is in no mounted volume", c.Name, setting, file)
}

// The smallest install: the defaults plus the NameServers and an admin. One console keeps
// its SQLite file on a claim that outlives the release, is replaced rather than rolled
// (two consoles cannot open one SQLite file), and has its admin added before it starts.
func TestChartMinimalIsOneConsoleOnSQLiteWithAClaim(t *testing.T) {
	o := render(t, "minimal-values.yaml")
	d := o.deployment
	if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("replicas %d, strategy %s; want 1, Recreate", *d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	if len(o.pvcs) != 1 || o.pvcs[0].Annotations["helm.sh/resource-policy"] != "keep" {
		t.Fatalf("claims %v: want one the release keeps on uninstall", o.pvcs)
	}
	if got := o.pvcs[0].Spec.Resources.Requests.Storage().String(); got != "1Gi" {
		t.Errorf("claim size %s, want 1Gi", got)
	}
	pod := d.Spec.Template.Spec
	data := volumeNamed(pod, "data")
	if data.PersistentVolumeClaim == nil || data.PersistentVolumeClaim.ClaimName != o.pvcs[0].Name {
		t.Errorf("data volume %+v, want the claim %s", data.VolumeSource, o.pvcs[0].Name)
	}
	env := envOf(pod.Containers[0])
	if _, ok := env["RMQC_DB"]; ok {
		t.Error("RMQC_DB set: the console should use SQLite in its data dir")
	}
	if env["RMQC_NAMESRV"].Value != "rocketmq-namesrv-0.rocketmq-namesrv:9876;rocketmq-namesrv-1.rocketmq-namesrv:9876" {
		t.Errorf("RMQC_NAMESRV = %q", env["RMQC_NAMESRV"].Value)
	}
	if len(pod.InitContainers) != 1 || pod.InitContainers[0].Name != "admin" {
		t.Fatalf("init containers %v, want the one adding the admin", pod.InitContainers)
	}
	admin := pod.InitContainers[0]
	if !slices.Equal(admin.Env[len(admin.Env)-len(pod.Containers[0].Env):], pod.Containers[0].Env) {
		t.Error("the admin is added with settings other than the console's: it would write another database")
	}
	if s := volumeNamed(pod, "admin").Secret; s == nil || s.SecretName != "rmqconsole-admin" {
		t.Errorf("the admin's password comes from %+v, want Secret rmqconsole-admin", s)
	}
	if o.pdb != nil || o.ingress != nil || o.serviceMonitor != nil {
		t.Error("a PodDisruptionBudget, Ingress or ServiceMonitor without asking")
	}
}

// Several consoles share PostgreSQL: its URL from a Secret, no claim (a claim is one
// console's), rolled one at a time with a disruption budget, and the ACL secret key read
// from a file of a Secret rather than from the environment.
func TestChartReplicasSharePostgresFromASecret(t *testing.T) {
	o := render(t, "postgres-replicas-values.yaml")
	d := o.deployment
	if *d.Spec.Replicas != 3 || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		t.Errorf("replicas %d, strategy %s; want 3, RollingUpdate", *d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	if len(o.pvcs) != 0 {
		t.Errorf("claims %v with PostgreSQL", o.pvcs)
	}
	pod := d.Spec.Template.Spec
	if v := volumeNamed(pod, "data"); v.EmptyDir == nil {
		t.Errorf("data volume %+v, want an emptyDir", v.VolumeSource)
	}
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		env := envOf(c)
		db := env["RMQC_DB"]
		if db.ValueFrom == nil || db.ValueFrom.SecretKeyRef == nil || db.ValueFrom.SecretKeyRef.Name != "rmqconsole-db" || db.ValueFrom.SecretKeyRef.Key != "url" {
			t.Errorf("%s: RMQC_DB %+v, want the url of Secret rmqconsole-db", c.Name, db)
		}
		if env["RMQC_SECRET_KEY_FILE"].Value != "/etc/rmqconsole/rocketmq/secret-key" || env["RMQC_ACCESS_KEY"].Value != "console" {
			t.Errorf("%s: credentials %+v %+v", c.Name, env["RMQC_ACCESS_KEY"], env["RMQC_SECRET_KEY_FILE"])
		}
		if _, ok := env["RMQC_SECRET_KEY"]; ok {
			t.Errorf("%s: the secret key in the environment", c.Name)
		}
	}
	if s := volumeNamed(pod, "admin").Secret; s == nil || len(s.Items) != 1 || s.Items[0].Key != "admin-password" || s.Items[0].Path != "password" {
		t.Errorf("admin password volume %+v, want key admin-password as the file password", s)
	}
	if o.pdb == nil || o.pdb.Spec.MinAvailable.IntValue() != 2 {
		t.Errorf("disruption budget %+v, want minAvailable 2", o.pdb)
	}
	if len(pod.TopologySpreadConstraints) != 1 {
		t.Errorf("topology spread %v", pod.TopologySpreadConstraints)
	}
}

// Behind an ingress with TLS, HTTPS to the console itself, sign-in by a trusted proxy,
// and a ServiceMonitor that scrapes with a bearer token over HTTPS.
func TestChartIngressTLSAndServiceMonitor(t *testing.T) {
	o := render(t, "ingress-tls-servicemonitor-values.yaml")
	ing := o.ingress
	if ing == nil {
		t.Fatal("no Ingress")
	}
	if ing.Spec.IngressClassName == nil || *ing.Spec.IngressClassName != "nginx" ||
		len(ing.Spec.TLS) != 1 || ing.Spec.TLS[0].SecretName != "rmq-example-com-tls" || !slices.Equal(ing.Spec.TLS[0].Hosts, []string{"rmq.example.com"}) ||
		len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].Host != "rmq.example.com" {
		t.Errorf("ingress %+v", ing.Spec)
	}
	if ing.Annotations["nginx.ingress.kubernetes.io/backend-protocol"] != "HTTPS" {
		t.Errorf("ingress annotations %v", ing.Annotations)
	}
	pod := o.deployment.Spec.Template.Spec
	env := envOf(pod.Containers[0])
	if env["RMQC_TLS_CERT"].Value != "/etc/rmqconsole/tls/tls.crt" || env["RMQC_TLS_KEY"].Value != "/etc/rmqconsole/tls/tls.key" {
		t.Errorf("TLS settings %+v %+v", env["RMQC_TLS_CERT"], env["RMQC_TLS_KEY"])
	}
	if s := volumeNamed(pod, "tls").Secret; s == nil || s.SecretName != "rmqconsole-serving-cert" {
		t.Errorf("tls volume %+v", s)
	}
	if env["RMQC_TRUSTED_PROXIES"].Value != "10.42.0.0/16,10.43.0.10" || env["RMQC_PROXY_USER_HEADER"].Value != "X-Auth-Request-User" ||
		env["RMQC_PROXY_ROLE_HEADER"].Value != "X-Auth-Request-Groups" {
		t.Errorf("proxy sign-in settings: %+v %+v %+v", env["RMQC_TRUSTED_PROXIES"], env["RMQC_PROXY_USER_HEADER"], env["RMQC_PROXY_ROLE_HEADER"])
	}
	// The ingress's name is one the console answers (it refuses unknown Host names when
	// it has no users), with the extra name the values add.
	if got := env["RMQC_ALLOWED_HOSTS"].Value; got != "rmq.example.com,rmq.internal.example.com" {
		t.Errorf("RMQC_ALLOWED_HOSTS %q, want the ingress's host and the extra name", got)
	}
	if len(pod.InitContainers) != 0 {
		t.Errorf("init containers %v without an admin", pod.InitContainers)
	}
	if env["RMQC_METRICS_INTERVAL"].Value != "15s" || env["RMQC_METRICS_GROUPS"].Value != "orders-.*|billing-cg" {
		t.Errorf("metrics settings %+v %+v", env["RMQC_METRICS_INTERVAL"], env["RMQC_METRICS_GROUPS"])
	}
	if o.service.Spec.Ports[0].AppProtocol == nil || *o.service.Spec.Ports[0].AppProtocol != "https" {
		t.Errorf("service port %+v, want appProtocol https", o.service.Spec.Ports[0])
	}
	if len(o.pvcs) != 1 || o.pvcs[0].Spec.StorageClassName == nil || *o.pvcs[0].Spec.StorageClassName != "fast-ssd" ||
		o.pvcs[0].Spec.Resources.Requests.Storage().String() != "5Gi" {
		t.Errorf("claim %+v", o.pvcs)
	}

	sm := o.serviceMonitor
	if sm == nil {
		t.Fatal("no ServiceMonitor")
	}
	if sm.Labels["release"] != "kube-prometheus-stack" || len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("ServiceMonitor %+v", sm)
	}
	ep := sm.Spec.Endpoints[0]
	if ep.Interval != "30s" || ep.ScrapeTimeout != "10s" {
		t.Errorf("interval %s, timeout %s", ep.Interval, ep.ScrapeTimeout)
	}
	if a := ep.Authorization; a == nil || a.Type != "Bearer" || a.Credentials == nil || a.Credentials.Name != "rmqconsole-metrics-token" || a.Credentials.Key != "token" {
		t.Errorf("authorization %+v, want the bearer token of Secret rmqconsole-metrics-token", a)
	}
	if ep.TLSConfig == nil || ep.TLSConfig.InsecureSkipVerify == nil || !*ep.TLSConfig.InsecureSkipVerify {
		t.Errorf("tlsConfig %+v", ep.TLSConfig)
	}
	if len(ep.MetricRelabelConfigs) != 1 || ep.MetricRelabelConfigs[0].Action != "drop" {
		t.Errorf("metricRelabelings %+v", ep.MetricRelabelConfigs)
	}
	if !strings.Contains(o.notes, "https://rmq.example.com/") {
		t.Errorf("notes do not give the ingress's address:\n%s", o.notes)
	}
}

// clustersFile is the part of the console's clusters file these checks read.
type clustersFile struct {
	Clusters []struct {
		Name          string   `json:"name"`
		NameServers   []string `json:"namesrv"`
		SecretKeyFile string   `json:"secret_key_file"`
	} `json:"clusters"`
}

// Several clusters: the clusters file in a Secret of the chart, mounted where RMQC_CONFIG
// says, each cluster's secret key file inside a mounted credentials Secret, and no
// single-cluster settings beside it (the console refuses both at once).
func TestChartSeveralClustersFromAFileInASecret(t *testing.T) {
	o := render(t, "multi-cluster-values.yaml")
	if len(o.secrets) != 1 {
		t.Fatalf("secrets %v, want the clusters file's", o.secrets)
	}
	sec := o.secrets[0]
	var f clustersFile
	if err := yaml.Unmarshal([]byte(sec.StringData["clusters.yaml"]), &f); err != nil {
		t.Fatalf("the clusters file in Secret %s: %v", sec.Name, err)
	}
	if len(f.Clusters) != 2 || f.Clusters[0].Name != "production" || f.Clusters[1].Name != "staging" {
		t.Fatalf("clusters %+v", f.Clusters)
	}
	pod := o.deployment.Spec.Template.Spec
	console := pod.Containers[0]
	env := envOf(console)
	if env["RMQC_CONFIG"].Value != "/etc/rmqconsole/clusters/clusters.yaml" {
		t.Errorf("RMQC_CONFIG = %q", env["RMQC_CONFIG"].Value)
	}
	if v := volumeNamed(pod, "clusters").Secret; v == nil || v.SecretName != sec.Name {
		t.Errorf("clusters volume %+v, want Secret %s", v, sec.Name)
	}
	for _, name := range []string{"RMQC_NAMESRV", "RMQC_ACCESS_KEY", "RMQC_SECRET_KEY_FILE"} {
		if _, ok := env[name]; ok {
			t.Errorf("%s beside a clusters file", name)
		}
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	for _, c := range f.Clusters {
		checkFileMounted(t, console, volumes, c.Name+" secret_key_file", c.SecretKeyFile)
	}
	if env["RMQC_MAX_HEAVY_QUERIES"].Value != "8" || env["RMQC_LAG_RETENTION"].Value != "336h" || env["RMQC_ALERT_LANG"].Value != "zh-CN" {
		t.Errorf("extra settings: %+v %+v %+v", env["RMQC_MAX_HEAVY_QUERIES"], env["RMQC_LAG_RETENTION"], env["RMQC_ALERT_LANG"])
	}
	if got := o.deployment.Spec.Template.Annotations["checksum/clusters"]; len(got) != 64 {
		t.Errorf("pod annotation checksum/clusters = %q: pods would not restart when the file changes", got)
	}
}

// Settings the console would refuse at start are refused at install, with the sentence
// naming the value to set; a misspelt value is refused by the chart's schema.
func TestChartRefusesWhatTheConsoleWouldRefuse(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{
			"rocketmq": map[string]any{"namesrv": "ns:9876"},
			"auth":     map[string]any{"admin": map[string]any{"name": "admin", "existingSecret": "a"}},
		}
	}
	with := func(f func(v map[string]any)) map[string]any {
		v := base()
		f(v)
		return v
	}
	ch, err := LoadChart(ChartDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		vals map[string]any
		want string
	}{
		{"the defaults alone", map[string]any{}, "rocketmq.namesrv: set the NameServers"},
		{"no way to sign in", map[string]any{"rocketmq": map[string]any{"namesrv": "ns:9876"}}, "auth: the console refuses"},
		{"two consoles on SQLite", with(func(v map[string]any) { v["replicaCount"] = 2 }), "replicaCount: several consoles must share a PostgreSQL"},
		{"a clusters file beside namesrv", with(func(v map[string]any) {
			v["clusters"] = map[string]any{"config": "clusters: []"}
		}), "clusters: with a clusters file, leave rocketmq.namesrv"},
		{"a clusters file of no known format", with(func(v map[string]any) {
			delete(v, "rocketmq")
			v["clusters"] = map[string]any{"existingSecret": "c", "key": "clusters.json"}
		}), "clusters.key: end it in .yaml"},
		{"an admin without a password", with(func(v map[string]any) {
			v["auth"] = map[string]any{"admin": map[string]any{"name": "admin"}}
		}), "auth.admin.existingSecret"},
		{"a ServiceMonitor without a token", with(func(v map[string]any) {
			v["metrics"] = map[string]any{"serviceMonitor": map[string]any{"enabled": true}}
		}), "metrics.serviceMonitor.bearerTokenSecret.name"},
		{"a chart setting in env", with(func(v map[string]any) { v["env"] = map[string]any{"RMQC_DB": "x"} }), "env.RMQC_DB: set it with database.url"},
		{"not a console setting in env", with(func(v map[string]any) { v["env"] = map[string]any{"GOGC": "50"} }), "env.GOGC: only the console's RMQC_ settings"},
		{"a misspelt value", with(func(v map[string]any) { v["ingres"] = map[string]any{"enabled": true} }), "ingres"},
		{"a misspelt nested value", with(func(v map[string]any) {
			v["persistence"] = map[string]any{"sizee": "2Gi"}
		}), "sizee"},
		{"a probe on another path", with(func(v map[string]any) {
			v["probes"] = map[string]any{"liveness": map[string]any{"path": "/health"}}
		}), "/probes/liveness/path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Render(ch, c.vals, Release{Name: "rmq", Namespace: "rocketmq"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// helm lint finds nothing to warn about with any of the values files.
func TestChartLints(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(ChartDir, "ci", "*.yaml"))
	if err != nil || len(files) < 4 {
		t.Fatalf("values files %v (%v)", files, err)
	}
	for _, f := range files {
		vals, err := ReadValuesFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res := lint.RunAll(ChartDir, vals, "rocketmq")
		for _, m := range res.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("%s: %s", path.Base(f), m)
			}
		}
	}
}

// The plain manifests committed under manifests/ are what the chart renders now: change
// the chart or their values and `make manifests` renders them again.
func TestPlainManifestsAreFreshRenders(t *testing.T) {
	want, err := PlainManifests(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 2 {
		t.Fatalf("%d plain manifests, want one per values file in %s", len(want), ManifestsDir)
	}
	committed, err := filepath.Glob(filepath.Join(ManifestsDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range committed {
		if _, ok := want[f]; !ok && !strings.HasSuffix(f, valuesSuffix) {
			t.Errorf("%s has no values file %s: remove it or add its values", f, strings.TrimSuffix(f, ".yaml")+valuesSuffix)
		}
	}
	for f, content := range want {
		got, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("%v: run make manifests", err)
			continue
		}
		if string(got) != content {
			t.Errorf("%s differs from a fresh render of the chart: run make manifests", f)
		}
		// And they are objects Kubernetes accepts, as the chart's renders are.
		var o objects
		for _, doc := range strings.Split(content, "\n---\n") {
			if strings.TrimSpace(stripComments(doc)) == "" || strings.TrimSpace(stripComments(doc)) == "---" {
				continue
			}
			if err := decodeStrict([]byte(doc), &o); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
		if o.deployment == nil {
			t.Errorf("%s: no Deployment", f)
		}
	}
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func volumeNamed(pod corev1.PodSpec, name string) corev1.Volume {
	for _, v := range pod.Volumes {
		if v.Name == name {
			return v
		}
	}
	return corev1.Volume{}
}
