package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "a86f3d8c0ffee0123456789abcdef0123456789a"
	for _, tc := range []struct {
		name  string
		stamp string
		bi    *debug.BuildInfo
		want  string
	}{
		{"release build stamp wins", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.2"}, Settings: vcs(rev, "false")}, "v1.2.3"},
		{"go install pkg@version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"go install pkg@pre-release", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.1-test"}}, "v0.0.1-test"},
		{"checkout: revision, not the pseudo-version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20261127120000-a86f3d8c0ffe"}, Settings: vcs(rev, "false")}, "a86f3d8c0ffe"},
		{"checkout with changes", "", &debug.BuildInfo{Main: debug.Module{Version: Devel}, Settings: vcs(rev, "true")}, "a86f3d8c0ffe+dirty"},
		{"nothing recorded", "", &debug.BuildInfo{Main: debug.Module{Version: Devel}}, Devel},
		{"no build info", "", nil, Devel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, FromBuildInfo(tc.stamp, tc.bi))
		})
	}
}
