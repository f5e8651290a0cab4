// Which C++ files the server gets: those that hold Halide generators. Other C++ files are not
// sent at all (the server would try to build every one of them).

const MARKERS = [/#\s*include\s*[<"]Halide\.h[>"]/, /\bGenerator\s*</, /\bHALIDE_REGISTER_GENERATOR\s*\(/];

/** True when `text` looks like a Halide generator source. */
export function isHalideGenerator(text: string): boolean {
  return MARKERS.some((marker) => marker.test(text));
}
