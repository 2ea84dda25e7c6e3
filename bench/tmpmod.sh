# Sourced by the bench scripts: tmpmod DIR makes DIR a module that
# requires this checkout of oarc (a replace directive), so that generated
# packages too big to commit can be built and benchmarked outside the repo.
tmpmod() {
	{
		echo "module synthbench"
		sed -n '/^go /,$p' "$root/go.mod"
		echo "require github.com/oarc/oarc v0.0.0"
		echo "replace github.com/oarc/oarc => $root"
	} >"$1/go.mod"
	cp "$root/go.sum" "$1/go.sum"
}
