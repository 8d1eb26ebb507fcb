// Webhook signing secrets (docs/events.md): generated as Standard Webhooks has them (`whsec_` +
// base64 of 32 random bytes), answered once, and kept encrypted with AES-256-GCM (node:crypto) under
// a key derived by HKDF-SHA-256 from the deployment's JWT secret, bound to their endpoint's id: a
// dump of the database alone does not give them away (unless the JWT secret is the one kept in
// the database, when JWT_SECRET is not configured).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const IV_BYTES = 12
const TAG_BYTES = 16

export class WebhookSecrets {
  private readonly deploymentSecret: () => Promise<string>
  private derived: Promise<Buffer> | undefined

  /** `deploymentSecret`: the JWT secret (auth/jwt-secret.ts), read when a secret is first sealed or opened. */
  constructor(deploymentSecret: () => Promise<string>) {
    this.deploymentSecret = deploymentSecret
  }

  private key(): Promise<Buffer> {
    this.derived ??= this.deploymentSecret().then((secret) =>
      Buffer.from(hkdfSync('sha256', secret, 'safety-platform', 'webhook signing secrets v1', 32)),
    )
    return this.derived
  }

  /** A new signing secret, as answered to the admin. */
  static generate(): string {
    return `whsec_${randomBytes(32).toString('base64')}`
  }

  /** iv, tag and ciphertext together, for the endpoint `endpointId` only. */
  async seal(secret: string, endpointId: string): Promise<Buffer> {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', await this.key(), iv)
    cipher.setAAD(Buffer.from(endpointId))
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
    return Buffer.concat([iv, cipher.getAuthTag(), sealed])
  }

  async open(sealed: Buffer, endpointId: string): Promise<string> {
    const decipher = createDecipheriv('aes-256-gcm', await this.key(), sealed.subarray(0, IV_BYTES))
    decipher.setAAD(Buffer.from(endpointId))
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')
  }
}
