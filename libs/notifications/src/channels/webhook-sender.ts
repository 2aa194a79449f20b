// The signing and sending moved to the outbound library, which the operators share.
export {
  RESPONSE_EXCERPT_CHARS,
  type SendResult,
  type SignedRequest,
  sendSignedWebhook,
  signatureHeaders,
} from '@platform/outbound';
