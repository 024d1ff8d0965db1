/** The registry implementation: private to the api bundle. */
package io.jofi.internal;
