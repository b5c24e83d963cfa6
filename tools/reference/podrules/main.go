// Command podrules-reference judges pod templates with the apiserver's own
// pod validation (k8s.io/kubernetes v1.37.2): each template is defaulted as
// the v1 API defaults a PodTemplate, converted to the internal type and
// passed to ValidatePodTemplateSpec with the options the apiserver derives
// from it, at the path the input names.
//
// Input: JSON lines on stdin, {"id": ..., "family": ..., "path": "spec.template",
// "template": v1.PodTemplateSpec}; a line with "header" is copied with the
// revision added. Output: each line with "errors" added, one record per
// field error in Go's order: type, field, detail and the Error() string.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/apis/core/validation"
)

// Revision is the module whose validation this harness runs.
const Revision = "k8s.io/kubernetes v1.37.2"

type record struct {
	Type   string `json:"type"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
	Error  string `json:"error"`
}

func pathOf(text string) *field.Path {
	var path *field.Path
	for _, part := range strings.Split(text, ".") {
		if path == nil {
			path = field.NewPath(part)
		} else {
			path = path.Child(part)
		}
	}
	return path
}

func judge(line map[string]json.RawMessage) ([]record, error) {
	var template v1.PodTemplateSpec
	if err := json.Unmarshal(line["template"], &template); err != nil {
		return nil, err
	}
	var where string
	if err := json.Unmarshal(line["path"], &where); err != nil {
		return nil, err
	}
	wrapper := &v1.PodTemplate{Template: template}
	corev1.SetObjectDefaults_PodTemplate(wrapper)
	var internal core.PodTemplateSpec
	if err := corev1.Convert_v1_PodTemplateSpec_To_core_PodTemplateSpec(&wrapper.Template, &internal, nil); err != nil {
		return nil, err
	}
	opts := podutil.GetValidationOptionsFromPodTemplate(&internal, nil)
	errs := validation.ValidatePodTemplateSpec(&internal, pathOf(where), opts)
	out := []record{}
	for _, err := range errs {
		out = append(out, record{Type: string(err.Type), Field: err.Field, Detail: err.Detail, Error: err.Error()})
	}
	return out, nil
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var line map[string]json.RawMessage
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if _, ok := line["header"]; ok {
			line["revision"], _ = json.Marshal(Revision)
			_ = enc.Encode(line)
			continue
		}
		errs, err := judge(line)
		if err != nil {
			line["decode_error"], _ = json.Marshal(err.Error())
		} else {
			line["errors"], _ = json.Marshal(errs)
		}
		_ = enc.Encode(line)
	}
}
