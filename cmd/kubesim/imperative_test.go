package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The imperative kubectl commands, each checked for what
// it did to the cluster, not only for its exit code and message. The
// commands whose bodies kubectl sends as protobuf (create namespace,
// deployment, service, secret...) are in imperative_proto_test.go.

// webDeployment is a Deployment of two nginx pods with a container port.
const webDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
`

// writeFile writes content to a fresh file and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// okWithEnv is ok with extra environment variables (EDITOR for edit); it
// returns stdout and stderr.
func (k *kubectl) okWithEnv(env []string, args ...string) (string, string) {
	k.t.Helper()
	cmd := k.cmd(args...)
	cmd.Env = append(cmd.Env, env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(k.t, cmd.Run(), "kubectl %s\nstdout: %s\nstderr: %s", strings.Join(args, " "), out.String(), errb.String())
	return out.String(), errb.String()
}

// exitCode runs kubectl and returns its exit code and stdout.
func (k *kubectl) exitCode(args ...string) (int, string) {
	k.t.Helper()
	cmd := k.cmd(args...)
	var out strings.Builder
	cmd.Stdout = &out
	err := cmd.Run()
	if err == nil {
		return 0, out.String()
	}
	if cmd.ProcessState == nil {
		k.t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

func (k *kubectl) jsonpath(resource, path string, extra ...string) string {
	k.t.Helper()
	return k.ok(append([]string{"get", resource, "-o", "jsonpath=" + path}, extra...)...)
}

// rolledOut waits for a Deployment's rollout, through kubectl itself.
func (k *kubectl) rolledOut(deploy string, extra ...string) {
	k.t.Helper()
	assert.Contains(k.t, k.ok(append([]string{"rollout", "status", deploy, "--timeout=90s"}, extra...)...), "successfully rolled out")
}

// replicaSets maps each ReplicaSet matching selector to its replicas and
// revision.
func (k *kubectl) replicaSets(selector string) map[string][2]string {
	k.t.Helper()
	out := k.ok("get", "rs", "-l", selector, "-o",
		`jsonpath={range .items[*]}{.metadata.name}{" "}{.spec.replicas}{" "}{.metadata.annotations.deployment\.kubernetes\.io/revision}{"\n"}{end}`)
	rs := map[string][2]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			rs[f[0]] = [2]string{f[1], f[2]}
		}
	}
	return rs
}

func TestKubectlImperativeWorkloads(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 2 }, "get", "nodes", "--no-headers")
	assert.Equal(t, "deployment.apps/web created\n", k.ok("apply", "-f", writeFile(t, "web.yaml", webDeployment)))
	k.rolledOut("deployment/web")

	t.Run("run", func(t *testing.T) {
		assert.Equal(t, "pod/solo created\n", k.ok("run", "solo", "--image=nginx:1.25", "--labels=app=solo,tier=one", "--port=80", "--env=MODE=test"))
		assert.Equal(t, "pod/solo condition met\n", k.ok("wait", "--for=condition=Ready", "pod/solo", "--timeout=60s"))
		assert.Equal(t, "nginx:1.25 80 one MODE=test Running",
			k.jsonpath("pod/solo", `{.spec.containers[0].image} {.spec.containers[0].ports[0].containerPort} {.metadata.labels.tier} {.spec.containers[0].env[0].name}={.spec.containers[0].env[0].value} {.status.phase}`))
		assert.Contains(t, k.fail("run", "solo", "--image=nginx"), `pods "solo" already exists`)
	})

	t.Run("expose", func(t *testing.T) {
		assert.Equal(t, "service/web exposed\n", k.ok("expose", "deployment", "web", "--port=8080", "--target-port=80"))
		out := k.jsonpath("svc/web", `{.spec.type} {.spec.selector.app} {.spec.ports[0].port} {.spec.ports[0].targetPort} {.spec.clusterIP}`)
		assert.Regexp(t, `^ClusterIP web 8080 80 10\.\d+\.\d+\.\d+$`, out)
		// The endpoints controller fills the Service with the two pods.
		k.eventually(func(out string) bool { return len(strings.Fields(out)) == 2 },
			"get", "endpoints", "web", "-o", `jsonpath={range .subsets[*].addresses[*]}{.ip}{" "}{end}`)
		assert.Equal(t, "service/solo-np exposed\n", k.ok("expose", "pod", "solo", "--name=solo-np", "--port=80", "--type=NodePort"))
		np := k.jsonpath("svc/solo-np", `{.spec.type} {.spec.selector.tier} {.spec.ports[0].nodePort}`)
		assert.Regexp(t, `^NodePort one 3\d{4}$`, np, "a node port is allocated")
		assert.Regexp(t, `(?m)^solo-np\s+NodePort\s+\S+\s+<none>\s+80:3\d{4}/TCP\s+`, k.ok("get", "svc", "solo-np"))
	})

	t.Run("set", func(t *testing.T) {
		assert.Equal(t, "deployment.apps/web image updated\n", k.ok("set", "image", "deployment/web", "nginx=nginx:1.26"))
		k.rolledOut("deployment/web")
		assert.Equal(t, "nginx:1.26 2", k.jsonpath("deployment/web", `{.spec.template.spec.containers[0].image} {.metadata.annotations.deployment\.kubernetes\.io/revision}`))
		assert.Len(t, k.replicaSets("app=web"), 2, "a new ReplicaSet for the new template")
		assert.Equal(t, "deployment.apps/web env updated\n", k.ok("set", "env", "deployment/web", "GREETING=hello"))
		// Each change rolled out before the next, so that each is a
		// revision of its own (two quick changes may make one).
		k.rolledOut("deployment/web")
		assert.Equal(t, "deployment.apps/web resource requirements updated\n",
			k.ok("set", "resources", "deployment/web", "--limits=cpu=200m,memory=128Mi", "--requests=cpu=100m"))
		k.rolledOut("deployment/web")
		assert.Equal(t, "GREETING=hello 200m 128Mi 100m",
			k.jsonpath("deployment/web", `{.spec.template.spec.containers[0].env[0].name}={.spec.template.spec.containers[0].env[0].value} {.spec.template.spec.containers[0].resources.limits.cpu} {.spec.template.spec.containers[0].resources.limits.memory} {.spec.template.spec.containers[0].resources.requests.cpu}`))
		// The pods are the new template's, once the old ones are gone.
		k.eventually(func(out string) bool { return strings.TrimSpace(out) == "hello-200m hello-200m" },
			"get", "pods", "-l", "app=web", "-o", `jsonpath={range .items[*]}{.spec.containers[0].env[0].value}{"-"}{.spec.containers[0].resources.limits.cpu}{" "}{end}`)
		// On a bare pod, the kubelet restarts the container from the new image.
		assert.Equal(t, "pod/solo image updated\n", k.ok("set", "image", "pod/solo", "solo=nginx:1.27"))
		k.eventually(func(out string) bool { return out == "docker.io/library/nginx:1.27 1 true" },
			"get", "pod", "solo", "-o", `jsonpath={.status.containerStatuses[0].image} {.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].ready}`)
		assert.Contains(t, k.ok("describe", "pod", "solo"), "Container solo definition changed, will be restarted")
		assert.Contains(t, k.fail("set", "env", "pod/solo", "A=b"), `Pod "solo" is invalid: spec: Forbidden: pod updates may not change fields other than`)
		assert.Equal(t, "service/web selector updated\n", k.ok("set", "selector", "svc/web", "app=web,tier=none"))
		assert.Equal(t, `{"app":"web","tier":"none"}`, k.jsonpath("svc/web", `{.spec.selector}`))
		k.eventually(func(out string) bool { return strings.TrimSpace(out) == "" },
			"get", "endpoints", "web", "-o", `jsonpath={.subsets[*].addresses[*].ip}`)
		k.ok("set", "selector", "svc/web", "app=web")
	})

	t.Run("scale", func(t *testing.T) {
		assert.Equal(t, "deployment.apps/web scaled\n", k.ok("scale", "deployment/web", "--replicas=3"))
		k.ok("wait", "--for=jsonpath={.status.readyReplicas}=3", "deployment/web", "--timeout=60s")
		k.eventually(func(out string) bool { return countLines(out) == 3 }, "get", "pods", "-l", "app=web", "--field-selector=status.phase=Running", "-o", "name")
		assert.Equal(t, "error: Expected replicas to be 2, was 3\n", k.fail("scale", "deployment/web", "--current-replicas=2", "--replicas=1"))
		assert.Equal(t, "3", k.jsonpath("deployment/web", "{.spec.replicas}"), "a failed precondition changes nothing")
	})

	t.Run("label annotate", func(t *testing.T) {
		assert.Equal(t, "deployment.apps/web labeled\n", k.ok("label", "deployment", "web", "team=blue"))
		assert.Equal(t, "error: 'team' already has a value (blue), and --overwrite is false\n", k.fail("label", "deployment", "web", "team=red"))
		k.ok("label", "deployment", "web", "team=red", "--overwrite")
		assert.Equal(t, "red", k.jsonpath("deployment/web", "{.metadata.labels.team}"))
		assert.Equal(t, "deployment.apps/web unlabeled\n", k.ok("label", "deployment", "web", "team-"))
		assert.NotContains(t, k.jsonpath("deployment/web", "{.metadata.labels}"), "team")
		assert.Equal(t, "pod/solo annotated\n", k.ok("annotate", "pod", "solo", "owner=ops"))
		assert.Equal(t, "ops", k.jsonpath("pod/solo", "{.metadata.annotations.owner}"))
		k.ok("annotate", "pod", "solo", "owner-")
		assert.Equal(t, "", k.jsonpath("pod/solo", "{.metadata.annotations.owner}"))
		// Labels on many objects at once, by selector.
		assert.GreaterOrEqual(t, strings.Count(k.ok("label", "pods", "-l", "app=web", "seen=yes"), " labeled\n"), 3)
		assert.Equal(t, "", k.ok("get", "pods", "-l", "app=web,seen!=yes", "-o", "name"))
	})

	t.Run("patch strategic merge json", func(t *testing.T) {
		assert.Equal(t, "deployment.apps/web patched\n", k.ok("patch", "deployment", "web", "-p",
			`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}`))
		// A strategic merge keeps the container's port, env and resources.
		assert.Equal(t, "nginx:1.27 80 hello", k.jsonpath("deployment/web",
			`{.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort} {.spec.template.spec.containers[0].env[0].value}`))
		k.ok("patch", "deployment", "web", "--type=merge", "-p", `{"metadata":{"annotations":{"note":"merged"}}}`)
		k.ok("patch", "deployment", "web", "--type=json", "-p", `[{"op":"replace","path":"/spec/replicas","value":2}]`)
		assert.Equal(t, "merged 2", k.jsonpath("deployment/web", `{.metadata.annotations.note} {.spec.replicas}`))
		assert.Contains(t, k.fail("patch", "deployment", "web", "--type=json", "-p", `[{"op":"remove","path":"/spec/nothing"}]`),
			`The request is invalid`)
		k.rolledOut("deployment/web")
	})

	t.Run("rollout history undo restart pause resume", func(t *testing.T) {
		// 1 the first template, 2 nginx:1.26, 3 the env, 4 the
		// resources, 5 nginx:1.27.
		hist := k.ok("rollout", "history", "deployment/web")
		assert.Regexp(t, `(?s)^deployment.apps/web \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n3\s+<none>\n4\s+<none>\n5\s+<none>\n`, hist)
		assert.Contains(t, k.ok("rollout", "history", "deployment/web", "--revision=2"), "Image:\tnginx:1.26")
		assert.Len(t, k.replicaSets("app=web"), 5)

		assert.Equal(t, "deployment.apps/web rolled back\n", k.ok("rollout", "undo", "deployment/web", "--to-revision=1"))
		k.rolledOut("deployment/web")
		assert.Equal(t, "nginx:1.25 6", k.jsonpath("deployment/web", `{.spec.template.spec.containers[0].image} {.metadata.annotations.deployment\.kubernetes\.io/revision}`),
			"the old template comes back as the newest revision")
		rs := k.replicaSets("app=web")
		var revs []string
		for _, r := range rs {
			revs = append(revs, r[1])
		}
		assert.ElementsMatch(t, []string{"2", "3", "4", "5", "6"}, revs, "the ReplicaSet of revision 1 became revision 6: %v", rs)
		assert.Contains(t, k.fail("rollout", "undo", "deployment/web", "--to-revision=1"), "unable to find specified revision 1 in history")

		assert.Equal(t, "deployment.apps/web restarted\n", k.ok("rollout", "restart", "deployment/web"))
		k.rolledOut("deployment/web")
		assert.Regexp(t, `^\d{4}-\d\d-\d\dT`, k.jsonpath("deployment/web", `{.spec.template.metadata.annotations.kubectl\.kubernetes\.io/restartedAt}`))
		assert.Len(t, k.replicaSets("app=web"), 6, "a restart is a new ReplicaSet")

		assert.Equal(t, "deployment.apps/web paused\n", k.ok("rollout", "pause", "deployment/web"))
		k.ok("set", "image", "deployment/web", "nginx=nginx:1.28")
		// The controller saw the change (observedGeneration) and made no
		// new ReplicaSet: the Progressing condition says why.
		k.ok("wait", "--for=jsonpath={.status.conditions[?(@.type==\"Progressing\")].reason}=DeploymentPaused", "deployment/web", "--timeout=60s")
		gen := k.jsonpath("deployment/web", "{.metadata.generation}")
		k.ok("wait", "--for=jsonpath={.status.observedGeneration}="+gen, "deployment/web", "--timeout=60s")
		assert.Len(t, k.replicaSets("app=web"), 6, "no rollout while paused")
		assert.Equal(t, "error: deployments.apps \"web\" is already paused\n", k.fail("rollout", "pause", "deployment/web"))
		assert.Equal(t, "deployment.apps/web resumed\n", k.ok("rollout", "resume", "deployment/web"))
		k.rolledOut("deployment/web")
		assert.Len(t, k.replicaSets("app=web"), 7)
		k.eventually(func(out string) bool { return strings.TrimSpace(out) == "nginx:1.28 nginx:1.28" },
			"get", "pods", "-l", "app=web", "-o", `jsonpath={range .items[*]}{.spec.containers[0].image}{" "}{end}`)
	})

	t.Run("edit", func(t *testing.T) {
		editor := writeFile(t, "editor.sh", "#!/bin/sh\nsed -i 's/replicas: 2/replicas: 4/' \"$1\"\n")
		require.NoError(t, os.Chmod(editor, 0o700))
		out, _ := k.okWithEnv([]string{"EDITOR=" + editor, "KUBE_EDITOR=" + editor}, "edit", "deployment/web")
		assert.Equal(t, "deployment.apps/web edited\n", out)
		k.ok("wait", "--for=jsonpath={.status.readyReplicas}=4", "deployment/web", "--timeout=60s")
		noop := writeFile(t, "noop.sh", "#!/bin/sh\ntrue\n")
		require.NoError(t, os.Chmod(noop, 0o700))
		_, errOut := k.okWithEnv([]string{"KUBE_EDITOR=" + noop}, "edit", "deployment/web")
		assert.Equal(t, "Edit cancelled, no changes made.\n", errOut)
		assert.Equal(t, "4", k.jsonpath("deployment/web", "{.spec.replicas}"))
	})

	t.Run("replace", func(t *testing.T) {
		k.ok("create", "-f", writeFile(t, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: one\n"))
		uid := k.jsonpath("cm/conf", "{.metadata.uid}")
		live := k.ok("get", "cm", "conf", "-o", "yaml")
		assert.Equal(t, "configmap/conf replaced\n", k.ok("replace", "-f", writeFile(t, "cm2.yaml", strings.Replace(live, "a: one", "a: two", 1))))
		assert.Equal(t, "two "+uid, k.jsonpath("cm/conf", "{.data.a} {.metadata.uid}"))
		// A stale resourceVersion is the real conflict.
		assert.Contains(t, k.fail("replace", "-f", writeFile(t, "stale.yaml", live)),
			`Operation cannot be fulfilled on configmaps "conf": the object has been modified; please apply your changes to the latest version and try again`)
		// --force deletes and creates: a new object.
		forced := k.ok("replace", "--force", "-f", writeFile(t, "cm3.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: three\n"))
		assert.Equal(t, "configmap \"conf\" deleted\nconfigmap/conf replaced\n", forced)
		assert.Equal(t, "three", k.jsonpath("cm/conf", "{.data.a}"))
		assert.NotEqual(t, uid, k.jsonpath("cm/conf", "{.metadata.uid}"))
	})

	t.Run("wait", func(t *testing.T) {
		assert.Equal(t, "deployment.apps/web condition met\n", k.ok("wait", "--for=condition=Available", "deployment/web", "--timeout=60s"))
		assert.Equal(t, "deployment.apps/web condition met\n", k.ok("wait", "--for=jsonpath={.spec.replicas}=4", "deployment/web", "--timeout=60s"))
		assert.Contains(t, k.fail("wait", "--for=jsonpath={.spec.replicas}=9", "deployment/web", "--timeout=1s"),
			"error: timed out waiting for the condition on deployments/web")
		// --for=delete returns once the object is gone, finalizer and all.
		k.ok("create", "configmap", "doomed", "--from-literal=a=b", "--dry-run=client", "-o", "yaml")
		k.ok("apply", "-f", writeFile(t, "doomed.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: doomed\n  finalizers: [example.com/hold]\n"))
		k.ok("delete", "cm", "doomed", "--wait=false")
		assert.Contains(t, k.fail("wait", "--for=delete", "cm/doomed", "--timeout=1s"), "timed out waiting for the condition on configmaps/doomed")
		k.ok("patch", "cm", "doomed", "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
		k.ok("wait", "--for=delete", "cm/doomed", "--timeout=60s")
		k.fail("get", "cm", "doomed")
	})

	t.Run("diff", func(t *testing.T) {
		manifest := writeFile(t, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: three\n")
		code, out := k.exitCode("diff", "-f", manifest)
		assert.Equal(t, 0, code, "no difference: %s", out)
		changed := writeFile(t, "cm-changed.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: four\n")
		code, out = k.exitCode("diff", "-f", changed)
		assert.Equal(t, 1, code, "exit 1 means differences")
		assert.Contains(t, out, "-  a: three\n+  a: four\n")
		assert.Equal(t, "three", k.jsonpath("cm/conf", "{.data.a}"), "diff is a server dry run: nothing written")
		newOne := writeFile(t, "new.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-yet\ndata:\n  a: b\n")
		code, out = k.exitCode("diff", "-f", newOne)
		assert.Equal(t, 1, code)
		assert.Contains(t, out, "+  name: not-yet")
		k.fail("get", "cm", "not-yet")
	})

	t.Run("delete cascade", func(t *testing.T) {
		mk := func(name string) {
			k.ok("apply", "-f", writeFile(t, name+".yaml", strings.ReplaceAll(webDeployment, "web", name)))
			k.rolledOut("deployment/" + name)
		}
		// orphan: the ReplicaSet and its pods stay, without an owner.
		mk("orphan")
		rsName := k.jsonpath("rs", "{.items[0].metadata.name}", "-l", "app=orphan")
		assert.Equal(t, "deployment.apps \"orphan\" deleted\n", k.ok("delete", "deployment", "orphan", "--cascade=orphan"))
		k.eventually(func(out string) bool { return strings.TrimSpace(out) == "" }, "get", "rs", rsName, "-o", "jsonpath={.metadata.ownerReferences}")
		assert.Equal(t, 2, countLines(k.ok("get", "pods", "-l", "app=orphan", "-o", "name")))

		// foreground: kubectl returns when the Deployment is gone, and it
		// goes only after its ReplicaSet and pods.
		mk("fg")
		assert.Equal(t, "deployment.apps \"fg\" deleted\n", k.ok("delete", "deployment", "fg", "--cascade=foreground"))
		assert.Equal(t, "", k.ok("get", "rs,pods", "-l", "app=fg", "-o", "name"), "dependents went first")

		// background (the default): the Deployment goes at once, the
		// collector removes the rest.
		mk("bg")
		k.ok("delete", "deployment", "bg", "--cascade=background")
		k.fail("get", "deployment", "bg")
		k.eventually(func(out string) bool { return strings.TrimSpace(out) == "" }, "get", "rs,pods", "-l", "app=bg", "-o", "name")
	})
}

// TestKubectlRolloutStatefulSet: history and undo need the
// ControllerRevisions the StatefulSet controller keeps.
func TestKubectlRolloutStatefulSet(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.ok("apply", "-f", "testdata/web-sts.yaml")
	k.ok("rollout", "status", "statefulset/web", "--timeout=90s")
	rev1 := k.jsonpath("statefulset/web", "{.status.currentRevision}")
	// A new revision copies the set's annotations: the change cause.
	k.ok("annotate", "statefulset", "web", "kubernetes.io/change-cause=upgrade to 1.26")
	assert.Equal(t, "statefulset.apps/web image updated\n", k.ok("set", "image", "statefulset/web", "nginx=nginx:1.26"))
	k.ok("rollout", "status", "statefulset/web", "--timeout=90s")
	rev2 := k.jsonpath("statefulset/web", "{.status.currentRevision}")
	require.NotEqual(t, rev1, rev2)

	out := k.ok("get", "controllerrevisions")
	assert.Regexp(t, `(?m)^NAME\s+CONTROLLER\s+REVISION\s+AGE$`, out)
	assert.Regexp(t, `(?m)^`+rev1+`\s+statefulset.apps/web\s+1\s+\d+s$`, out)
	assert.Regexp(t, `(?m)^`+rev2+`\s+statefulset.apps/web\s+2\s+\d+s$`, out)
	assert.Equal(t, "statefulset.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         upgrade to 1.26\n\n", k.ok("rollout", "history", "statefulset/web"))
	assert.Contains(t, k.ok("rollout", "history", "statefulset/web", "--revision=1"), "Image:\tnginx:1.25")

	assert.Equal(t, "statefulset.apps/web rolled back\n", k.ok("rollout", "undo", "statefulset/web"))
	k.ok("rollout", "status", "statefulset/web", "--timeout=90s")
	assert.Equal(t, rev1+" nginx:1.25", k.jsonpath("statefulset/web", "{.status.currentRevision} {.spec.template.spec.containers[0].image}"))
	k.eventually(func(out string) bool { return strings.TrimSpace(out) == rev1+" "+rev1+" "+rev1 },
		"get", "pods", "-l", "app=nginx", "-o", `jsonpath={range .items[*]}{.metadata.labels.controller-revision-hash}{" "}{end}`)
	// The old revision came back renumbered as the newest.
	assert.Regexp(t, `(?m)^`+rev1+`\s+statefulset.apps/web\s+3\s+`, k.ok("get", "controllerrevisions"))
	assert.Equal(t, "statefulset.apps/web skipped rollback (current template already matches revision 3)\n",
		k.ok("rollout", "undo", "statefulset/web", "--to-revision=3"))
	assert.Contains(t, k.fail("rollout", "undo", "statefulset/web", "--to-revision=7"), "unable to find specified revision 7 in history")

	// rollout restart stamps the template: a third revision.
	assert.Equal(t, "statefulset.apps/web restarted\n", k.ok("rollout", "restart", "statefulset/web"))
	k.ok("rollout", "status", "statefulset/web", "--timeout=90s")
	assert.Equal(t, 3, countLines(k.ok("get", "controllerrevisions", "-o", "name")))

	// delete --cascade=orphan keeps the pods and the history; the set
	// applied again adopts both, its first template renumbered newest.
	k.ok("delete", "statefulset", "web", "--cascade=orphan")
	k.eventually(func(out string) bool { return strings.TrimSpace(out) == "" }, "get", "controllerrevisions", "-o", "jsonpath={.items[*].metadata.ownerReferences}")
	assert.Equal(t, 3, countLines(k.ok("get", "controllerrevisions", "-o", "name")))
	assert.Equal(t, 3, countLines(k.ok("get", "pods", "-l", "app=nginx", "-o", "name")))
	k.ok("apply", "-f", "testdata/web-sts.yaml")
	k.ok("rollout", "status", "statefulset/web", "--timeout=90s")
	uid := k.jsonpath("statefulset/web", "{.metadata.uid}")
	k.eventually(func(out string) bool { return out == uid+" "+uid+" "+uid },
		"get", "controllerrevisions", "-o", "jsonpath={.items[*].metadata.ownerReferences[0].uid}")
	assert.Regexp(t, `(?s)REVISION\s+CHANGE-CAUSE\n2\s+upgrade to 1.26\n4\s+upgrade to 1.26\n5\s+<none>\n`, k.ok("rollout", "history", "statefulset/web"))
	assert.Equal(t, rev1, k.jsonpath("statefulset/web", "{.status.currentRevision}"))

	// Deleting the set collects its revisions.
	k.ok("delete", "statefulset", "web")
	k.eventually(func(out string) bool { return strings.TrimSpace(out) == "" }, "get", "controllerrevisions", "-o", "name")

	// revisionHistoryLimit 0 keeps only the revisions in use.
	k.ok("apply", "-f", writeFile(t, "lim.yaml", `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: lim
spec:
  serviceName: nginx
  replicas: 2
  revisionHistoryLimit: 0
  selector:
    matchLabels:
      app: lim
  template:
    metadata:
      labels:
        app: lim
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
`))
	k.ok("rollout", "status", "statefulset/lim", "--timeout=90s")
	for _, image := range []string{"nginx:1.26", "nginx:1.27"} {
		k.ok("set", "image", "statefulset/lim", "nginx="+image)
		k.ok("rollout", "status", "statefulset/lim", "--timeout=90s")
	}
	current := k.jsonpath("statefulset/lim", "{.status.currentRevision}")
	k.eventually(func(out string) bool { return out == "controllerrevision.apps/"+current+"\n" }, "get", "controllerrevisions", "-o", "name")
}

// TestKubectlNodes: cordon, uncordon and taint, honoured by the scheduler.
func TestKubectlNodes(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 2 }, "get", "nodes", "--no-headers")
	nodesOf := func(selector string) map[string]int {
		out := k.ok("get", "pods", "-l", selector, "-o", `jsonpath={range .items[*]}{.spec.nodeName}{"\n"}{end}`)
		m := map[string]int{}
		for _, n := range strings.Fields(out) {
			m[n]++
		}
		return m
	}
	deploy := func(name string, replicas int, extra string) {
		k.ok("apply", "-f", writeFile(t, name+".yaml", strings.NewReplacer("web", name, "replicas: 2", "replicas: "+strconv.Itoa(replicas)).Replace(webDeployment)+extra))
		k.rolledOut("deployment/" + name)
	}

	t.Run("cordon uncordon", func(t *testing.T) {
		assert.Equal(t, "node/node-1 cordoned\n", k.ok("cordon", "node-1"))
		assert.Equal(t, "true", k.jsonpath("node/node-1", "{.spec.unschedulable}"))
		assert.Regexp(t, `(?m)^node-1\s+Ready,SchedulingDisabled\s+`, k.ok("get", "nodes"))
		assert.Equal(t, "node/node-1 already cordoned\n", k.ok("cordon", "node-1"))
		deploy("cordoned", 4, "")
		assert.Equal(t, map[string]int{"node-2": 4}, nodesOf("app=cordoned"), "no pod on the cordoned node")
		assert.Equal(t, "node/node-1 uncordoned\n", k.ok("uncordon", "node-1"))
		assert.Equal(t, "", k.jsonpath("node/node-1", "{.spec.unschedulable}"))
		k.ok("scale", "deployment/cordoned", "--replicas=8")
		k.rolledOut("deployment/cordoned")
		assert.Positive(t, nodesOf("app=cordoned")["node-1"], "node-1 takes pods again")
		k.ok("delete", "deployment", "cordoned")
	})

	t.Run("taint", func(t *testing.T) {
		assert.Equal(t, "node/node-2 tainted\n", k.ok("taint", "nodes", "node-2", "dedicated=db:NoSchedule"))
		assert.Equal(t, `[{"effect":"NoSchedule","key":"dedicated","value":"db"}]`, k.jsonpath("node/node-2", "{.spec.taints}"))
		assert.Equal(t, "error: node node-2 already has dedicated taint(s) with same effect(s) and --overwrite is false\n",
			k.fail("taint", "nodes", "node-2", "dedicated=web:NoSchedule"))
		deploy("plain", 4, "")
		assert.Equal(t, map[string]int{"node-1": 4}, nodesOf("app=plain"), "pods that do not tolerate the taint avoid node-2")
		// Pods that tolerate it may go there; with node-1 cordoned they must.
		k.ok("cordon", "node-1")
		deploy("db", 2, "      tolerations:\n      - key: dedicated\n        operator: Equal\n        value: db\n        effect: NoSchedule\n")
		assert.Equal(t, map[string]int{"node-2": 2}, nodesOf("app=db"))
		k.ok("uncordon", "node-1")
		assert.Equal(t, "node/node-2 untainted\n", k.ok("taint", "nodes", "node-2", "dedicated:NoSchedule-"))
		assert.Equal(t, "", k.jsonpath("node/node-2", "{.spec.taints}"))
		assert.Equal(t, "error: taint \"dedicated:NoSchedule\" not found\n", k.fail("taint", "nodes", "node-2", "dedicated:NoSchedule-"))

		// NoExecute also evicts the pods already there that do not
		// tolerate it (the taint eviction controller): plain's four pods
		// move from node-1 to node-2.
		assert.Equal(t, "node/node-1 tainted\n", k.ok("taint", "nodes", "node-1", "maintenance=now:NoExecute"))
		k.eventually(func(out string) bool { return strings.TrimSpace(out) == "node-2 node-2 node-2 node-2" },
			"get", "pods", "-l", "app=plain", "-o", `jsonpath={range .items[*]}{.spec.nodeName}{" "}{end}`)
		k.ok("taint", "nodes", "node-1", "maintenance-")
	})
}
