import type { Command } from './types.js';
import { config } from './config.js';
import { info } from './info.js';
import { login } from './login.js';
import { logout } from './logout.js';
import { search } from './search.js';
import { whoami } from './whoami.js';

/**
 * Every command of `pkg`, in help order. Command modules stay light at import time (heavy
 * modules load inside `run`), so listing them all for `pkg --help` is cheap.
 */
export const COMMANDS: readonly Command[] = [login, logout, whoami, search, info, config];
