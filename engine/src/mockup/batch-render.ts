// A batch of mockups of one design (op `mockupBatch`): every item rendered by the single mockup's renderer
// from one design source, so the design is decoded once and each print size resampled once (design cache),
// each blank and supplier photo prepared once (their own caches), in one worker. Two items are in flight at a
// time: while libvips encodes one image on its own threads, the next one's composite runs in JavaScript.
import { renderMockup, type MockupResult } from './render.js';
import type { DesignSource } from './design-source.js';
import type { ResolvedMockup } from './resolve.js';
import type { StageReporter } from '../progress.js';

/** What `engine.mockupBatch` returns: one mockup per item, in item order, each as `engine.mockup` gives it. */
export interface MockupBatchResult {
  images: MockupResult[];
}

/** Stages of `mockupBatch`: the design's header, then the items (progress counts finished items). */
export const MOCKUP_BATCH_STAGES = { decode: 2, render: 98 } as const;
export type MockupBatchStage = keyof typeof MOCKUP_BATCH_STAGES;

/** Items rendered at once: one compositing on the worker's thread while the other is encoded by libvips. */
const IN_FLIGHT = 2;

/** Render every item on `design`; the images come back in item order. */
export async function renderMockupBatch(
  design: DesignSource, items: readonly Readonly<ResolvedMockup>[], progress: StageReporter<MockupBatchStage> = () => {}, garmentCacheDir?: string,
): Promise<MockupBatchResult> {
  const images: MockupResult[] = new Array(items.length);
  let next = 0, done = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      images[i] = await renderMockup(design, items[i]!, () => {}, garmentCacheDir);
      done++;
      progress('render', done / items.length, `render ${done}/${items.length}`);
    }
  };
  progress('render', 0, `render 0/${items.length}`);
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, items.length) }, lane));
  return { images };
}
