package main

// Pod groups: a whole kube-scheduler (scheduler.New over a fake clientset,
// sched.Run in a goroutine) is given the instance's objects and left to do
// what it does; the fake clientset's reactors record every binding (and
// perform it on the fake, so the scheduler's cache confirms the pod), every
// pod deletion (the victims of preemption) and every PodGroup status
// condition. One instance is run several times: the real scheduler breaks
// ties at random, so each distinct outcome is kept with how often it came.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	schedv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

// groupInstance is an instance with pod groups to place. "groups" holds the
// PodGroups and CompositePodGroups to place (Kubernetes JSON with kind),
// "templates" each PodGroup's pod count and pod template; "runningGroups",
// "priorityClasses" and "pdbs" are what the cluster already holds.
type groupInstance struct {
	ID              string                          `json:"id"`
	Nodes           []*v1.Node                      `json:"nodes"`
	Pods            []*v1.Pod                       `json:"pods"`
	RunningGroups   []json.RawMessage               `json:"runningGroups"`
	PriorityClasses []*schedv1.PriorityClass        `json:"priorityClasses"`
	PDBs            []*policyv1.PodDisruptionBudget `json:"pdbs"`
	Groups          []json.RawMessage               `json:"groups"`
	Templates       map[string]podSet               `json:"templates"`
	Runs            int                             `json:"runs"`
}

type podSet struct {
	Count    int                `json:"count"`
	Template v1.PodTemplateSpec `json:"template"`
}

// outcome is what one run of the scheduler did.
type outcome struct {
	// Bound maps each bound pod to its node.
	Bound map[string]string `json:"bound"`
	// Order is the pods in the order their bindings were made.
	Order []string `json:"order"`
	// Victims are the pods deleted by preemption, sorted.
	Victims []string `json:"victims"`
	// Conditions maps each PodGroup to its last PodGroupInitiallyScheduled
	// condition: "True: message" or "False: reason: message".
	Conditions map[string]string `json:"conditions"`
	TimedOut   bool              `json:"timedOut"`
	// Panic is the first panic of the scheduler during the run (the harness
	// logs it and lets the scheduler go on, as ReallyCrash=false does).
	Panic string `json:"panic,omitempty"`
}

type groupResult struct {
	// Outcomes are the distinct outcomes (bindings and victims) over the runs.
	Outcomes []outcomeCount `json:"outcomes"`
	Runs     int            `json:"runs"`
	Error    string         `json:"error,omitempty"`
}

type outcomeCount struct {
	outcome
	Count int `json:"count"`
}

type typeMeta struct {
	Kind string `json:"kind"`
}

func placeGroups(inst *groupInstance, defaultRuns int) groupResult {
	runs := inst.Runs
	if runs <= 0 {
		runs = defaultRuns
	}
	res := groupResult{Runs: runs}
	seen := map[string]int{}
	for r := 0; r < runs; r++ {
		out, err := runGroups(inst)
		if err != nil {
			res.Error = err.Error()
			return res
		}
		key, _ := json.Marshal(struct {
			B map[string]string
			V []string
			T bool
			P string
		}{out.Bound, out.Victims, out.TimedOut, out.Panic})
		if i, ok := seen[string(key)]; ok {
			res.Outcomes[i].Count++
			continue
		}
		seen[string(key)] = len(res.Outcomes)
		res.Outcomes = append(res.Outcomes, outcomeCount{outcome: out, Count: 1})
	}
	return res
}

// recorder holds what the reactors saw, under one lock.
type recorder struct {
	mu         sync.Mutex
	panicked   string
	bound      map[string]string
	order      []string
	victims    []string
	conditions map[string]string
	// last is the time of the last binding or deletion; decided that of the
	// first condition seen on a PodGroup.
	last    time.Time
	decided time.Time
}

func (r *recorder) touch() { r.last = time.Now() }

// current is the recorder of the run under way, for the panic handler.
var current atomic.Pointer[recorder]

func init() {
	utilruntime.ReallyCrash = false
	utilruntime.PanicHandlers = append(utilruntime.PanicHandlers, func(_ context.Context, r interface{}) {
		if rec := current.Load(); rec != nil {
			rec.mu.Lock()
			if rec.panicked == "" {
				rec.panicked = fmt.Sprint(r)
			}
			rec.mu.Unlock()
		}
	})
}

func runGroups(inst *groupInstance) (outcome, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objects, toPlace, err := groupObjects(inst)
	if err != nil {
		return outcome{}, err
	}
	client := fake.NewClientset()
	rec := &recorder{bound: map[string]string{}, conditions: map[string]string{}, last: time.Now()}
	current.Store(rec)
	tracker := client.Tracker()
	podsGVR := v1.SchemeGroupVersion.WithResource("pods")
	client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		binding := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		obj, err := tracker.Get(podsGVR, binding.Namespace, binding.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = binding.Target.Name
		if err := tracker.Update(podsGVR, pod, pod.Namespace); err != nil {
			return true, nil, err
		}
		rec.mu.Lock()
		rec.bound[binding.Name] = binding.Target.Name
		rec.order = append(rec.order, binding.Name)
		rec.touch()
		rec.mu.Unlock()
		return true, binding, nil
	})
	client.PrependReactor("delete", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		rec.mu.Lock()
		rec.victims = append(rec.victims, action.(clienttesting.DeleteAction).GetName())
		rec.touch()
		rec.mu.Unlock()
		return false, nil, nil
	})
	client.PrependReactor("patch", "podgroups", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "status" {
			return false, nil, nil
		}
		patch := action.(clienttesting.PatchAction)
		var body struct {
			Status struct {
				Conditions []metav1.Condition `json:"conditions"`
			} `json:"status"`
		}
		_ = json.Unmarshal(patch.GetPatch(), &body)
		rec.mu.Lock()
		for _, c := range body.Status.Conditions {
			if c.Type != "PodGroupInitiallyScheduled" || c.Status == "" {
				continue
			}
			text := string(c.Status) + ": " + c.Message
			if c.Status != metav1.ConditionTrue {
				text = string(c.Status) + ": " + c.Reason + ": " + c.Message
			}
			if rec.decided.IsZero() {
				rec.decided = time.Now()
			}
			rec.conditions[patch.GetName()] = text
		}
		rec.mu.Unlock()
		return false, nil, nil
	})
	for _, obj := range objects {
		if err := tracker.Add(obj); err != nil {
			return outcome{}, fmt.Errorf("add %T: %w", obj, err)
		}
	}

	factory := scheduler.NewInformerFactory(client, 0, nil)
	recorders := profile.RecorderFactory(func(string) events.EventRecorderLogger { return &events.FakeRecorder{} })
	sched, err := scheduler.New(ctx, client, factory, nil, recorders,
		scheduler.WithParallelism(1),
		scheduler.WithPodInitialBackoffSeconds(1),
		scheduler.WithPodMaxBackoffSeconds(1))
	if err != nil {
		return outcome{}, fmt.Errorf("scheduler.New: %w", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }()
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		return outcome{}, fmt.Errorf("handlers: %w", err)
	}
	done := make(chan struct{})
	go func() { sched.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	// An instance is over when every pod is bound, or when every PodGroup to
	// place has a condition and nothing was bound or deleted for a while;
	// after a preemption, long enough for the preemptor's next attempt (one
	// backoff of 1 s) to bind.
	out := outcome{}
	deadline := time.Now().Add(6 * time.Second)
	const settle = 250 * time.Millisecond
	const afterPreemption = 2500 * time.Millisecond
	for {
		time.Sleep(5 * time.Millisecond)
		rec.mu.Lock()
		all := len(rec.bound) == toPlace.pods
		decided := !rec.decided.IsZero()
		for _, pg := range toPlace.leaves {
			if _, ok := rec.conditions[pg]; !ok {
				decided = false
			}
		}
		wait := settle
		if len(rec.victims) > 0 {
			wait = afterPreemption
		}
		quiet := time.Since(rec.last) > wait && time.Since(rec.decided) > settle
		rec.mu.Unlock()
		if (all && time.Since(rec.last) > 20*time.Millisecond) || (decided && quiet) {
			break
		}
		if time.Now().After(deadline) {
			out.TimedOut = true
			break
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out.Bound = rec.bound
	out.Order = rec.order
	out.Victims = append([]string{}, rec.victims...)
	sort.Strings(out.Victims)
	out.Conditions = rec.conditions
	out.Panic = rec.panicked
	return out, nil
}

type placing struct {
	pods   int
	leaves []string
}

// groupObjects decodes the instance into API objects for the fake clientset,
// with UIDs, namespaces and the pods of every PodGroup to place expanded
// from its template: pod i of group g is "g-i", in the group's namespace,
// with spec.schedulingGroup naming g and spec.priority the root's priority.
func groupObjects(inst *groupInstance) ([]runtime.Object, placing, error) {
	var objects []runtime.Object
	var toPlace placing
	uid := func(kind, ns, name string) types.UID { return types.UID(kind + "-" + ns + "-" + name) }
	base := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	for _, n := range inst.Nodes {
		n.UID = uid("node", "", n.Name)
		objects = append(objects, n)
	}
	for _, pc := range inst.PriorityClasses {
		pc.UID = uid("pc", "", pc.Name)
		objects = append(objects, pc)
	}
	for _, pdb := range inst.PDBs {
		if pdb.Namespace == "" {
			pdb.Namespace = "default"
		}
		pdb.UID = uid("pdb", pdb.Namespace, pdb.Name)
		objects = append(objects, pdb)
	}
	for _, p := range inst.Pods {
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		p.UID = uid("pod", p.Namespace, p.Name)
		if p.Spec.SchedulerName == "" {
			p.Spec.SchedulerName = v1.DefaultSchedulerName
		}
		if p.Status.Phase == "" {
			p.Status.Phase = v1.PodRunning
		}
		objects = append(objects, p)
	}
	decode := func(raw json.RawMessage, placed bool) error {
		var meta typeMeta
		if err := json.Unmarshal(raw, &meta); err != nil {
			return err
		}
		switch meta.Kind {
		case "PodGroup":
			pg := &schedv1beta1.PodGroup{}
			if err := json.Unmarshal(raw, pg); err != nil {
				return err
			}
			if pg.Namespace == "" {
				pg.Namespace = "default"
			}
			pg.UID = uid("pg", pg.Namespace, pg.Name)
			pg.Generation = 1
			objects = append(objects, pg)
			if placed {
				toPlace.leaves = append(toPlace.leaves, pg.Name)
			}
		case "CompositePodGroup":
			cpg := &schedv1alpha3.CompositePodGroup{}
			if err := json.Unmarshal(raw, cpg); err != nil {
				return err
			}
			if cpg.Namespace == "" {
				cpg.Namespace = "default"
			}
			cpg.UID = uid("cpg", cpg.Namespace, cpg.Name)
			cpg.Generation = 1
			objects = append(objects, cpg)
		default:
			return fmt.Errorf("unknown group kind %q", meta.Kind)
		}
		return nil
	}
	for _, raw := range inst.RunningGroups {
		if err := decode(raw, false); err != nil {
			return nil, toPlace, fmt.Errorf("running group: %w", err)
		}
	}
	for _, raw := range inst.Groups {
		if err := decode(raw, true); err != nil {
			return nil, toPlace, fmt.Errorf("group: %w", err)
		}
	}
	names := make([]string, 0, len(inst.Templates))
	for name := range inst.Templates {
		names = append(names, name)
	}
	sort.Strings(names)
	for gi, name := range names {
		set := inst.Templates[name]
		priority, policy := rootPriority(inst, name)
		for i := 0; i < set.Count; i++ {
			pod := &v1.Pod{ObjectMeta: *set.Template.ObjectMeta.DeepCopy(), Spec: *set.Template.Spec.DeepCopy()}
			pod.Name = fmt.Sprintf("%s-%d", name, i)
			pod.Namespace = "default"
			pod.UID = uid("pod", pod.Namespace, pod.Name)
			pod.CreationTimestamp = metav1.NewTime(base.Add(time.Duration(gi*1000+i) * time.Millisecond))
			group := name
			pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
			pod.Spec.Priority = &priority
			if policy != nil {
				p := v1.PreemptionPolicy(*policy)
				pod.Spec.PreemptionPolicy = &p
			}
			if pod.Spec.SchedulerName == "" {
				pod.Spec.SchedulerName = v1.DefaultSchedulerName
			}
			pod.Status.Phase = v1.PodPending
			objects = append(objects, pod)
			toPlace.pods++
		}
	}
	return objects, toPlace, nil
}

// rootPriority is spec.priority of the root above PodGroup name (0 when
// unset) and its spec.preemptionPolicy (nil when unset): every pod of a
// hierarchy must carry both, as admission would have given them.
func rootPriority(inst *groupInstance, name string) (int32, *string) {
	type spec struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Parent   *string `json:"parentCompositePodGroupName"`
			Priority *int32  `json:"priority"`
			Policy   *string `json:"preemptionPolicy"`
		} `json:"spec"`
	}
	byName := map[string]spec{}
	for _, raw := range inst.Groups {
		var s spec
		_ = json.Unmarshal(raw, &s)
		byName[s.Metadata.Name] = s
	}
	cur, ok := byName[name]
	for ok && cur.Spec.Parent != nil {
		next, found := byName[*cur.Spec.Parent]
		if !found {
			break
		}
		cur = next
	}
	if cur.Spec.Priority != nil {
		return *cur.Spec.Priority, cur.Spec.Policy
	}
	return 0, cur.Spec.Policy
}
