// Every CLI verb. Adding a verb = one import and one entry here.
import type { Command } from '../command.js';
import { infoCommand } from './info.js';
import { serveCommand } from './serve.js';
import { adminCommand } from './admin.js';
import { vectorizeCommand } from './vectorize.js';

export const COMMANDS: readonly Command[] = [infoCommand, serveCommand, adminCommand, vectorizeCommand];
