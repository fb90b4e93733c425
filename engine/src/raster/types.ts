// Plain pixel structs passed between pipeline stages and across the worker boundary.

/** 8-bit sRGB RGBA pixels with straight (non-premultiplied) alpha, row-major, 4 bytes per pixel. */
export interface Raster {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

/** Source formats the engine accepts. */
export type ImageFormat = 'png' | 'jpeg' | 'webp';

/** What decoding learned about the source file (the CLI `info` verb prints this). */
export interface DecodeInfo {
  /** Width in pixels after EXIF orientation. */
  width: number;
  /** Height in pixels after EXIF orientation. */
  height: number;
  format: ImageFormat;
  isJpeg: boolean;
  /** The source had an alpha channel (PNG tRNS or alpha, WebP alpha). */
  hasAlpha: boolean;
  /** The density the file states, in DPI; null when it states none. */
  density: number | null;
  /** Source colour space as read by libvips, e.g. `srgb`, `cmyk`, `b-w`. */
  space: string;
  /** Source bits per sample (8 or 16). */
  bitsPerSample: number;
  /** Source channel count before conversion. */
  channels: number;
  /** The file carried an embedded ICC profile (it was applied to reach sRGB). */
  icc: boolean;
  /** EXIF orientation tag (1-8) that was applied; 1 when absent. */
  orientation: number;
  /** PNG was Adam7-interlaced or JPEG progressive. */
  interlaced: boolean;
  /** PNG palette (indexed colour) source. */
  palette: boolean;
  /** Encoded size in bytes. */
  bytes: number;
}

/** A decoded image: pixels plus the report. */
export interface DecodedImage {
  raster: Raster;
  info: DecodeInfo;
}

/** Allocate a transparent raster. */
export function createRaster(width: number, height: number): Raster {
  return { width, height, data: new Uint8ClampedArray(width * height * 4) };
}
