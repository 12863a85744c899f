# env.d hook: scope compose projects to this worktree's box. Exports only.
COMPOSE_PROJECT_NAME=${COMPOSE_PROJECT_NAME:-byre-${BYRE_WORKTREE:-box}}
export COMPOSE_PROJECT_NAME
