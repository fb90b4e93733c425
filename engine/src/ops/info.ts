// Op `info`: the decode report of a file (format, size, alpha, density) without running any algorithm.
import { decodeImage } from '../raster/decode.js';
import type { DecodeInfo } from '../raster/types.js';
import { defineOptions } from '../options/table.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

/** `info` takes no options. */
export type InfoOptions = Record<string, never>;

/** No fields: the resolver only checks that options, when given, are an object. */
const INFO_OPTIONS = defineOptions([]);

export const infoOp: OpDef<InfoOptions, InfoOptions, DecodeInfo> = {
  fields: INFO_OPTIONS.fields,
  resolve: INFO_OPTIONS.resolve,
  async run(input, _opts, ctx) {
    if (isRaster(input)) {
      return {
        width: input.width, height: input.height, format: 'png', isJpeg: false, hasAlpha: true, density: null,
        space: 'srgb', bitsPerSample: 8, channels: 4, icc: false, orientation: 1, interlaced: false, palette: false,
        bytes: input.data.byteLength,
      };
    }
    // Decoding fully (not just the header) proves the file is readable, which is what `info` promises.
    stageProgress(ctx.progress, { decode: 1 })('decode');
    return (await decodeImage(input, { maxPixels: ctx.maxPixels })).info;
  },
};
