// Every CLI verb. Adding a verb = one import and one entry here.
import type { Command } from '../command.js';
import { infoCommand } from './info.js';
import { removeBgCommand } from './remove-bg.js';
import { mockupCommand } from './mockup.js';
import { mockupBatchCommand } from './mockup-batch.js';
import { upscaleCommand } from './upscale.js';
import { scanCommand } from './scan.js';
import { fixCommand } from './fix.js';
import { underbaseCommand } from './underbase.js';
import { gangsheetCommand } from './gangsheet.js';
import { serveCommand } from './serve.js';
import { adminCommand } from './admin.js';
import { clusterCommand } from './cluster.js';
import { vectorizeCommand } from './vectorize.js';
import { modelsCommand } from './models.js';

export const COMMANDS: readonly Command[] = [infoCommand, removeBgCommand, scanCommand, fixCommand, underbaseCommand, gangsheetCommand, serveCommand, clusterCommand, adminCommand, vectorizeCommand, upscaleCommand, mockupCommand, mockupBatchCommand, modelsCommand];
