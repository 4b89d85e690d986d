import type { Command } from './types.js';
import { add } from './add.js';
import { completion } from './completion.js';
import { config } from './config.js';
import { info } from './info.js';
import { install } from './install.js';
import { list } from './list.js';
import { login } from './login.js';
import { publish } from './publish.js';
import { logout } from './logout.js';
import { search } from './search.js';
import { uninstall } from './uninstall.js';
import { update } from './update.js';
import { whoami } from './whoami.js';

/**
 * Every command of `pkg`, in help order. Command modules stay light at import time (heavy
 * modules load inside `run`), so listing them all for `pkg --help` is cheap.
 */
export const COMMANDS: readonly Command[] = [
  login,
  logout,
  whoami,
  search,
  info,
  add,
  install,
  uninstall,
  update,
  list,
  publish,
  config,
  completion,
];
