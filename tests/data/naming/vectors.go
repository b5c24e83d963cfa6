// Command vectors prints the name vectors of tests/test_naming.py with Go's
// own hash/fnv and go-spew, so they can be checked against the Go algorithm.
//
// It restates, in a few lines each, the Job controller's computeWorkloadName
// and computePodGroupName (upstream workloadbuilder's GenerateWorkloadName and
// GeneratePodGroupName) and apimachinery's rand.SafeEncodeString. Hashing the
// UID goes through go-spew exactly as hashutil.DeepHashObject does; spew
// prints a value's type as "<package>.<Type>", so a local package named
// "types" stands in for k8s.io/apimachinery/pkg/types.
//
// Run it in GOPATH mode with go-spew 1.1.1 (the code Kubernetes vendors):
//
//	mkdir -p $GOPATH/src/vectors/types && cp vectors.go $GOPATH/src/vectors/
//	printf 'package types\n\ntype UID string\n' > $GOPATH/src/vectors/types/types.go
//	GO111MODULE=off go run vectors < input.tsv
//
// Each input line is tab-separated: "fnv TEXT", "workload OWNER UID" or
// "podgroup WORKLOAD TEMPLATE"; each output line is the answer.
package main

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"os"
	"strings"

	"github.com/davecgh/go-spew/spew"

	"vectors/types"
)

const alphanums = "bcdfghjklmnpqrstvwxz2456789"
const subdomainMax = 253

func safeEncodeString(s string) string {
	r := make([]byte, len(s))
	for i, b := range []rune(s) {
		r[i] = alphanums[int(b)%len(alphanums)]
	}
	return string(r)
}

func workloadName(owner string, uid types.UID) string {
	hasher := fnv.New32a()
	hasher.Reset()
	printer := spew.ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}
	printer.Fprintf(hasher, "%#v", uid)
	hash := safeEncodeString(fmt.Sprint(hasher.Sum32()))
	if owner == "" {
		return hash
	}
	if max := subdomainMax - len(hash) - 1; len(owner) > max {
		owner = owner[:max]
	}
	return owner + "-" + hash
}

func podGroupName(wl, tpl string) string {
	hasher := fnv.New32a()
	hasher.Write([]byte(wl))
	hasher.Write([]byte(tpl))
	hash := safeEncodeString(fmt.Sprint(hasher.Sum32()))
	// Empty names as upstream workloadbuilder's GeneratePodGroupName has them
	// (the Job controller never passes one).
	if maxPrefix := subdomainMax - len(hash) - 1; wl == "" || tpl == "" {
		prefix := wl + tpl
		if prefix == "" {
			return hash
		}
		if len(prefix) > maxPrefix {
			prefix = prefix[:maxPrefix]
		}
		return prefix + "-" + hash
	}
	maxAvailable := subdomainMax - len(hash) - 2
	if len(wl)+len(tpl) > maxAvailable {
		half := maxAvailable / 2
		switch {
		case len(wl) <= half:
			tpl = tpl[:maxAvailable-len(wl)]
		case len(tpl) <= half:
			wl = wl[:maxAvailable-len(tpl)]
		default:
			wl = wl[:maxAvailable-half]
			tpl = tpl[:half]
		}
	}
	return wl + "-" + tpl + "-" + hash
}

func main() {
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() {
		f := strings.Split(lines.Text(), "\t")
		switch f[0] {
		case "fnv":
			h := fnv.New32a()
			h.Write([]byte(f[1]))
			fmt.Printf("%d %s\n", h.Sum32(), safeEncodeString(fmt.Sprint(h.Sum32())))
		case "workload":
			fmt.Println(workloadName(f[1], types.UID(f[2])))
		case "podgroup":
			fmt.Println(podGroupName(f[1], f[2]))
		}
	}
}
