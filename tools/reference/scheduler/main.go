// Command scheduler-reference places single pods with the real kube-scheduler
// framework (default in-tree registry, default v1 profile) and prints, for each
// instance, the feasible nodes, every score plugin's normalized score per
// feasible node, the weighted totals and the set of best nodes.
//
// Input: JSON lines on stdin. A line whose object has "header" is copied to
// the output with the scheduler's revision and gates added. A line with
// "groups" is a pod-group instance, run through a whole scheduler (groups.go);
// a line with "queue" is a queue of workloads played out in simulated time
// through a whole scheduler (queues.go).
// Every other line is a single-pod instance: {"id": ..., "family": ..., "nodes": [v1.Node...],
// "pods": [v1.Pod... with spec.nodeName], "pod": v1.Pod}. The instance is
// written back with a "result" object added. An instance with "count" above
// 1 places that many copies of the pod one after another (sequence.go).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	schedcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

// Revision is the kube-scheduler module version this harness is built against.
const Revision = "k8s.io/kubernetes v1.37.2"

// Gates are the feature gates the project models on, switched on here.
var Gates = map[string]bool{
	"GenericWorkload":                 true,
	"TopologyAwareWorkloadScheduling": true,
	"CompositePodGroup":               true,
	"DRAWorkloadResourceClaims":       true,
	"PodGroupPreemptionPolicy":        true,
}

type instance struct {
	ID     string     `json:"id"`
	Family string     `json:"family"`
	Nodes  []*v1.Node `json:"nodes"`
	Pods   []*v1.Pod  `json:"pods"`
	Pod    *v1.Pod    `json:"pod"`
	// Count > 1 places that many copies of Pod one after another (sequence).
	Count int `json:"count,omitempty"`
}

type nodeScore struct {
	// Normalized is each plugin's score after NormalizeScore, before weights.
	Normalized map[string]int64 `json:"normalized"`
	Total      int64            `json:"total"`
}

type result struct {
	PreFilterStatus string               `json:"prefilterStatus,omitempty"`
	Feasible        []string             `json:"feasible"`
	Rejected        map[string][]string  `json:"rejected"`
	Weights         map[string]int       `json:"weights"`
	Scores          map[string]nodeScore `json:"scores"`
	Best            []string             `json:"best"`
	BestTotal       int64                `json:"bestTotal"`
	ScoringSkipped  bool                 `json:"scoringSkipped"`
	Error           string               `json:"error,omitempty"`
}

func main() {
	runs := flag.Int("runs", 5, "runs of the whole scheduler per pod-group instance (ties are broken at random)")
	flag.Parse()
	klog.SetOutput(os.Stderr)
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(Gates); err != nil {
		fmt.Fprintln(os.Stderr, "gates:", err)
		os.Exit(2)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		line := in.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(line, &raw); err != nil {
			fmt.Fprintln(os.Stderr, "bad line:", err)
			os.Exit(2)
		}
		if h, ok := raw["header"]; ok {
			var header map[string]any
			_ = json.Unmarshal(h, &header)
			header["revision"] = Revision
			header["gates"] = Gates
			header["profile"] = "default v1 KubeSchedulerConfiguration profile, in-tree registry"
			header["runs"] = *runs
			raw["header"], _ = json.Marshal(header)
			writeLine(out, raw)
			continue
		}
		if _, ok := raw["queue"]; ok {
			var qinst queueInstance
			if err := json.Unmarshal(line, &qinst); err != nil {
				fmt.Fprintln(os.Stderr, "bad queue instance:", err)
				os.Exit(2)
			}
			res := placeQueue(&qinst, *runs)
			raw["result"], _ = json.Marshal(res)
			writeLine(out, raw)
			continue
		}
		if _, ok := raw["groups"]; ok {
			var ginst groupInstance
			if err := json.Unmarshal(line, &ginst); err != nil {
				fmt.Fprintln(os.Stderr, "bad group instance:", err)
				os.Exit(2)
			}
			res := placeGroups(&ginst, *runs)
			raw["result"], _ = json.Marshal(res)
			writeLine(out, raw)
			continue
		}
		var inst instance
		if err := json.Unmarshal(line, &inst); err != nil {
			fmt.Fprintln(os.Stderr, "bad instance:", err)
			os.Exit(2)
		}
		if inst.Count > 1 {
			raw["result"], _ = json.Marshal(placeSequence(&inst))
			writeLine(out, raw)
			continue
		}
		res := place(&inst)
		raw["result"], _ = json.Marshal(res)
		writeLine(out, raw)
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "read:", err)
		os.Exit(2)
	}
}

func writeLine(out *bufio.Writer, raw map[string]json.RawMessage) {
	b, _ := json.Marshal(raw)
	out.Write(b)
	out.WriteByte('\n')
}

// place builds a scheduler over a fake clientset holding the instance's
// objects, takes its default profile's framework, and runs the extension
// points of one scheduling cycle up to scoring, recording instead of binding.
func place(inst *instance) result {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := result{Rejected: map[string][]string{}, Scores: map[string]nodeScore{}, Weights: map[string]int{}, Feasible: []string{}, Best: []string{}}

	for i, p := range inst.Pods {
		if p.UID == "" {
			p.UID = types.UID(fmt.Sprintf("running-%d-%s", i, p.Name))
		}
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		p.Status.Phase = v1.PodRunning
	}
	pod := inst.Pod
	if pod.Namespace == "" {
		pod.Namespace = "default"
	}
	if pod.UID == "" {
		pod.UID = types.UID("incoming-" + pod.Name)
	}
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = v1.DefaultSchedulerName
	}

	client := fake.NewClientset()
	for _, n := range inst.Nodes {
		if _, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			res.Error = "create node: " + err.Error()
			return res
		}
	}
	for _, p := range inst.Pods {
		if _, err := client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			res.Error = "create pod: " + err.Error()
			return res
		}
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	snapshot := schedcache.NewSnapshot(inst.Pods, inst.Nodes)
	recorders := profile.RecorderFactory(func(string) events.EventRecorderLogger { return &events.FakeRecorder{} })
	sched, err := scheduler.New(ctx, client, factory, nil, recorders,
		scheduler.WithNodeInfoSnapshot(snapshot),
		scheduler.WithParallelism(1))
	if err != nil {
		res.Error = "scheduler.New: " + err.Error()
		return res
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	// Informers stop when the context ends: cancel first, then wait for them.
	defer func() { cancel(); factory.Shutdown() }()

	fw, ok := sched.Profiles[v1.DefaultSchedulerName]
	if !ok {
		res.Error = "no default-scheduler profile"
		return res
	}
	for _, pl := range fw.ListPlugins().Score.Enabled {
		res.Weights[pl.Name] = int(pl.Weight)
	}

	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(false)
	preRes, status, _ := fw.RunPreFilterPlugins(ctx, state, pod)
	if !status.IsSuccess() {
		res.PreFilterStatus = fmt.Sprintf("%s: %s (%s)", status.Code(), strings.Join(status.Reasons(), "; "), status.Plugin())
		return res
	}
	all, err := snapshot.NodeInfos().List()
	if err != nil {
		res.Error = err.Error()
		return res
	}
	var feasibleInfos = make([]fwk.NodeInfo, 0, len(all))
	for _, ni := range all {
		name := ni.Node().Name
		if preRes != nil && !preRes.AllNodes() && !preRes.NodeNames.Has(name) {
			res.Rejected[name] = []string{"PreFilterResult"}
			continue
		}
		st := fw.RunFilterPlugins(ctx, state, pod, ni)
		if st.IsSuccess() {
			feasibleInfos = append(feasibleInfos, ni)
			res.Feasible = append(res.Feasible, name)
		} else {
			res.Rejected[name] = append([]string{st.Plugin()}, st.Reasons()...)
		}
	}
	sort.Strings(res.Feasible)
	if len(feasibleInfos) == 0 {
		return res
	}
	// With one feasible node the real scheduler takes it without scoring;
	// the scores are still computed here so that they can be compared.
	res.ScoringSkipped = len(feasibleInfos) == 1
	if st := fw.RunPreScorePlugins(ctx, state, pod, feasibleInfos); !st.IsSuccess() {
		res.Error = "prescore: " + st.Message()
		return res
	}
	scores, st := fw.RunScorePlugins(ctx, state, pod, feasibleInfos)
	if !st.IsSuccess() {
		res.Error = "score: " + st.Message()
		return res
	}
	best := int64(-1 << 62)
	for _, ns := range scores {
		norm := map[string]int64{}
		for _, ps := range ns.Scores {
			w := int64(res.Weights[ps.Name])
			if w == 0 {
				w = 1
			}
			norm[ps.Name] = ps.Score / w
		}
		res.Scores[ns.Name] = nodeScore{Normalized: norm, Total: ns.TotalScore}
		if ns.TotalScore > best {
			best = ns.TotalScore
		}
	}
	res.BestTotal = best
	for _, ns := range scores {
		if ns.TotalScore == best {
			res.Best = append(res.Best, ns.Name)
		}
	}
	sort.Strings(res.Best)
	return res
}
