/** Rules about the shape of the code base that the build enforces. */
package io.picomq.architecture;
