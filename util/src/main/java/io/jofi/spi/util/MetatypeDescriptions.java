package io.jofi.spi.util;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Reads the attribute descriptions of a property type from the metatype document bnd
 * generated for it ({@code OSGI-INF/metatype/<type>.xml} in the type's bundle), so that the
 * descriptions are written once, in the {@code @AttributeDefinition}s.
 */
final class MetatypeDescriptions {
    private MetatypeDescriptions() {
    }

    /** Attribute id → description; empty when the type's bundle (e.g. a classes folder) has no metatype. */
    static Map<String, String> of(Class<?> type) {
        Map<String, String> out = new HashMap<>();
        ClassLoader loader = type.getClassLoader();
        URL xml = loader == null ? null : loader.getResource("OSGI-INF/metatype/" + type.getName() + ".xml");
        if (xml == null) {
            return out;
        }
        try (InputStream in = xml.openStream()) {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            NodeList ads = f.newDocumentBuilder().parse(in).getElementsByTagName("AD");
            for (int i = 0; i < ads.getLength(); i++) {
                Element ad = (Element) ads.item(i);
                out.put(ad.getAttribute("id"), ad.getAttribute("description"));
            }
        } catch (IOException | ParserConfigurationException | SAXException e) {
            // a metatype that cannot be read only costs the descriptions
        }
        return out;
    }
}
