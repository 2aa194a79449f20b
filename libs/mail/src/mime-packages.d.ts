// The parts of libmime and libqp (nodemailer's and mailparser's own encoders) this library uses;
// neither package ships types.
declare module 'libmime' {
  const libmime: {
    encodeWords(data: string, mimeWordEncoding: 'Q' | 'B', maxLength?: number): string;
    foldLines(str: string, lineLength?: number, afterSpace?: boolean): string;
  };
  export default libmime;
}

declare module 'libqp' {
  const libqp: {
    encode(data: Buffer | string): string;
    wrap(str: string, lineLength?: number): string;
  };
  export default libqp;
}
