# Queues an index update for git-vlt: one file per run under .vlt/queue/, written by git plumbing,
# then a detached background indexer if none is running. Never prints, never fails the git command.
# Added by `git vlt hooks install`; `git vlt hooks uninstall` removes it and restores what was here.
if [ @HOOK@ = post-rewrite ]; then git_vlt_stdin=$(cat); fi
(
  set +eu
  # A cloned repository can commit .vlt, or any path under it, as a symlink aimed anywhere: nothing
  # is written, read or moved through one here (the hook skips, as it does for an unwritable queue).
  nolink() { for p; do [ -L "$p" ] && return 1; done; return 0; }
  # Git runs hooks from the top of the working tree; no .vlt/ there means nothing is indexed.
  [ -d .vlt ] && nolink .vlt || exit 0
  from= to=
  case @HOOK@ in
  post-commit)
    read -r to from _ <<GIT_VLT_EOF
$(git rev-list --parents -n 1 HEAD)
GIT_VLT_EOF
    ;;
  post-merge)
    # A squash merge leaves HEAD where it was; its commit will come through post-commit.
    [ "$1" = 1 ] && exit 0
    from=$(git rev-parse -q --verify ORIG_HEAD) to=$(git rev-parse -q --verify HEAD)
    ;;
  post-checkout)
    # Flag 0 is a file checkout: HEAD did not move, and dirty files are the index's overlay anyway.
    [ "$3" = 1 ] || exit 0
    from=$1 to=$2
    # A clone checks out from the null commit.
    case $from in *[!0]*) ;; *) from= ;; esac
    ;;
  post-rewrite)
    read -r from _ <<GIT_VLT_EOF
$git_vlt_stdin
GIT_VLT_EOF
    # A rebase's net change runs from the branch tip it started on, which git keeps in ORIG_HEAD.
    [ "$1" = rebase ] && from=$(git rev-parse -q --verify ORIG_HEAD)
    to=$(git rev-parse -q --verify HEAD)
    ;;
  esac
  [ -n "$to" ] && [ "$from" != "$to" ] || exit 0
  q=.vlt/queue
  nolink $q || exit 0
  [ -d $q ] || mkdir $q || exit 0
  # Written aside then renamed: a reader sees a whole batch or none, and parallel hooks never share a file.
  id=$to-@HOOK@-$$
  # (mv onto a link to a folder would move the batch into that folder.)
  nolink $q/.$id.tmp $q/$id.delta || exit 0
  # The closing "end" line tells a reader the batch is whole (a crash can leave a renamed file short).
  {
    printf 'vlt-delta 1 @HOOK@ %s %s\n' "${from:--}" "$to" &&
    if [ -n "$from" ]; then
      git diff-tree -r -z --raw --numstat @RENAMES@ "$from" "$to"
    else
      git diff-tree -r -z --raw --numstat --root --no-commit-id "$to"
    fi &&
    printf 'end\n'
  } >$q/.$id.tmp && mv -f $q/.$id.tmp $q/$id.delta || { rm -f $q/.$id.tmp; exit 0; }

  node=@NODE@ cli=@CLI@
  # Installed without a launcher, the hooks only queue (`git vlt coderag sync` applies the queue).
  [ -n "$cli" ] || exit 0
  nolink $q/indexer-state.json $q/indexer.pid $q/.indexer-pid.$$.tmp .vlt/logs .vlt/logs/indexer.log .vlt/logs/indexer.log.1 || exit 0
  if [ -x "$node" ] && [ -f "$cli" ]; then
    set -- "$node" "$cli"
  elif command -v git-vlt; then
    set -- git-vlt
  else
    exit 0
  fi
  # One indexer at a time: its state file starts with {"pid":N; an unfinished run of a live N will see
  # this batch (it looks at the queue again after recording that it finished).
  state=
  [ -f $q/indexer-state.json ] && IFS= read -r state <$q/indexer-state.json
  case $state in
  *'"finishedAt":null'*)
    pid=${state#\{\"pid\":}
    pid=${pid%%[!0-9]*}
    [ -n "$pid" ] && kill -0 "$pid" && exit 0
    ;;
  esac
  # An indexer started by a hook moments ago has not recorded itself yet (node is still starting),
  # and it reads the queue only after it has: its pid, kept in indexer.pid, stands for it until the
  # state file names it. From then on the state file alone decides (above).
  if [ -f $q/indexer.pid ]; then
    IFS= read -r launched <$q/indexer.pid
    case $state in
    *"{\"pid\":$launched,"*) ;;
    *) [ -n "$launched" ] && kill -0 "$launched" && exit 0 ;;
    esac
  fi
  [ -d .vlt/logs ] || mkdir .vlt/logs || exit 0
  # Every run appends to the log: past 1 MiB it is kept as indexer.log.1 and a new one is started.
  if [ -f .vlt/logs/indexer.log ]; then
    size=$(wc -c <.vlt/logs/indexer.log)
    [ $size -gt 1048576 ] && mv -f .vlt/logs/indexer.log .vlt/logs/indexer.log.1
  fi
  unset GIT_INDEX_FILE GIT_PREFIX
  nohup "$@" @ARGS@ </dev/null >>.vlt/logs/indexer.log 2>&1 &
  echo $! >$q/.indexer-pid.$$.tmp && mv -f $q/.indexer-pid.$$.tmp $q/indexer.pid
  exit 0
) </dev/null >/dev/null 2>&1 || :
if [ @HOOK@ = post-rewrite ]; then exec <<GIT_VLT_EOF
$git_vlt_stdin
GIT_VLT_EOF
fi
