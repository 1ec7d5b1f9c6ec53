package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The container that adds the admin runs the console's own users command before the
// console starts: the first start adds the admin, later starts leave it as it is, and a
// database it cannot open stops the pod rather than starting a console nobody can sign
// in to. Run with the real binary on a real SQLite file.
func TestAdminIsAddedOnceAndKeptAcrossRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the console")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "rmqconsole"), ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	o := render(t, "minimal-values.yaml")
	pod := o.deployment.Spec.Template.Spec
	init := pod.InitContainers[0]
	mount, ok := mountAt(init, "/etc/rmqconsole/admin")
	if !ok || mount.Name != "admin" {
		t.Fatalf("the admin's Secret is not mounted at /etc/rmqconsole/admin: %+v", init.VolumeMounts)
	}
	password := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(password, []byte("s3cret-enough-Passw0rd"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := strings.ReplaceAll(init.Command[2], mount.MountPath+"/password", password)
	if script == init.Command[2] {
		t.Fatal("the script does not read the password from the mounted Secret")
	}
	run := func(dataDir string) (string, error) {
		cmd := exec.Command(init.Command[0], init.Command[1], script)
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
		for _, e := range init.Env {
			v := e.Value
			if e.Name == "RMQC_DATA_DIR" {
				v = dataDir
			}
			cmd.Env = append(cmd.Env, e.Name+"="+v)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	data := t.TempDir()
	out, err := run(data)
	if err != nil || !strings.Contains(out, "admin") {
		t.Fatalf("first start: %v\n%s", err, out)
	}
	t.Logf("first start: %s", out)
	out, err = run(data)
	if err != nil || !strings.Contains(out, "already exists: left as it is") {
		t.Fatalf("second start: %v\n%s", err, out)
	}
	list := exec.Command(filepath.Join(bin, "rmqconsole"), "users", "list")
	list.Env = []string{"RMQC_DATA_DIR=" + data, "LC_ALL=C"}
	if b, err := list.CombinedOutput(); err != nil || !strings.Contains(string(b), "admin") {
		t.Fatalf("users list: %v\n%s", err, b)
	}

	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := run(filepath.Join(blocked, "data")); err == nil {
		t.Fatalf("a data dir that cannot exist: the script succeeded\n%s", out)
	} else {
		t.Logf("a data dir that cannot exist: %v: %s", err, out)
	}
}
