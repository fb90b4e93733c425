// The busy background of the remove-bg benches: interfering sine waves in three channels plus uniform noise
// (seeded, deterministic per call): what the artwork matte is not for and the segmentation model must handle.
export function busyTexture(): (x: number, y: number) => [number, number, number] {
  let seed = 99;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  return (x, y) => {
    const a = Math.sin(x * 0.043 + Math.sin(y * 0.021) * 4), b = Math.sin(y * 0.057 + Math.cos(x * 0.017) * 3);
    return [140 + 80 * a + rand() * 40, 120 + 70 * b + rand() * 40, 130 + 60 * a * b + rand() * 40];
  };
}
