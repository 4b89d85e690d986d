import type { Command } from './types.js';
import { add } from './add.js';
import { advisory } from './advisory.js';
import { audit } from './audit.js';
import { cache } from './cache.js';
import { completionCommand } from './completion.js';
import { config } from './config.js';
import { info } from './info.js';
import { install } from './install.js';
import { list } from './list.js';
import { login } from './login.js';
import { pack } from './pack.js';
import { publish } from './publish.js';
import { logout } from './logout.js';
import { distTag } from './dist-tag.js';
import { deprecate } from './deprecate.js';
import { outdated } from './outdated.js';
import { why } from './why.js';
import { search } from './search.js';
import { uninstall } from './uninstall.js';
import { update } from './update.js';
import { whoami } from './whoami.js';
import { token } from './token.js';

// Describes the list it is part of: it reads the list only when it runs.
const completion = completionCommand(() => COMMANDS);

/**
 * Every command of `pkg`, in help order. Command modules stay light at import time (heavy
 * modules load inside `run`), so listing them all for `pkg --help` is cheap.
 */
export const COMMANDS: readonly Command[] = [
  login,
  logout,
  whoami,
  token,
  search,
  info,
  add,
  install,
  uninstall,
  update,
  list,
  outdated,
  why,
  pack,
  audit,
  publish,
  advisory,
  distTag,
  deprecate,
  config,
  cache,
  completion,
];
